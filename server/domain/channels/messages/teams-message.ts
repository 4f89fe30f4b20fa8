import type { EventSummary } from '../event-summary.js';
import { bodyOf, cut, factsOf, listed, lookOf, regressionsOf, titleOf } from './message-parts.js';

/** Teams refuses a message over 28 KB; texts are kept well within it. */
export const TeamsLimits = { bytes: 28 * 1024, text: 4000 } as const;

const FAILURES_SHOWN = 10;

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
  const failures = event.tests?.failures ?? [];
  if (failures.length > 0) {
    const more = (event.tests?.failed ?? 0) + (event.tests?.errors ?? 0) - failures.length;
    const lines = listed(failures, FAILURES_SHOWN).map((name) => `- ${name}`);
    if (more > 0) lines.push(`- … and ${more} more`);
    body.push({
      type: 'TextBlock',
      text: cut(`**Failed tests**\n\n${lines.join('\n')}`, TeamsLimits.text),
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
