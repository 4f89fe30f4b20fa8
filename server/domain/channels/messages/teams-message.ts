import type { EventSummary } from '../event-summary.js';
import {
  bodyOf,
  cut,
  factsOf,
  failureLines,
  failureListsOf,
  lookOf,
  regressionsOf,
  titleOf,
} from './message-parts.js';

/** Teams refuses a message over 28 KB; texts are kept well within it. */
export const TeamsLimits = { bytes: 28 * 1024, text: 4000 } as const;

/**
 * A build or release as an Adaptive Card (1.4, which Teams renders) in the message envelope a
 * Teams workflow webhook expects: a coloured title, a FactSet, the description, the failed tests,
 * and buttons to the run and the project page. Teams has no mention a webhook can make.
 */
export function teamsMessage(event: EventSummary) {
  const look = lookOf(event);
  const body: unknown[] = [
    {
      type: 'TextBlock',
      text: cut(titleOf(event), 300),
      weight: 'Bolder',
      size: 'Medium',
      color: look.teamsColor,
      wrap: true,
    },
  ];
  const facts = factsOf(event).map((fact) => ({
    title: fact.label,
    value: cut(fact.url ? `[${fact.value}](${fact.url})` : fact.value, 500),
  }));
  if (facts.length > 0) body.push({ type: 'FactSet', facts });
  const text = bodyOf(event);
  if (text) body.push({ type: 'TextBlock', text: cut(text, TeamsLimits.text), wrap: true });
  for (const list of failureListsOf(event)) {
    const lines = failureLines(list, '- ').join('\n');
    body.push({
      type: 'TextBlock',
      text: cut(`**${list.title}**\n\n${lines}`, TeamsLimits.text),
      wrap: true,
    });
  }
  const regressions = regressionsOf(event);
  if (regressions) {
    const lines = regressions.lines.map((line) => `- ${line}`).join('\n');
    body.push({
      type: 'TextBlock',
      text: cut(`**${regressions.title}**\n\n${lines}`, TeamsLimits.text),
      wrap: true,
    });
  }
  const actions = [
    event.runUrl && { type: 'Action.OpenUrl', title: 'Open the run', url: event.runUrl },
    event.pageUrl && { type: 'Action.OpenUrl', title: 'Project page', url: event.pageUrl },
  ].filter(Boolean);
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          ...(actions.length > 0 ? { actions } : {}),
        },
      },
    ],
  };
}
