import type { EventSummary } from '../event-summary.js';
import {
  bodyOf,
  cut,
  factsOf,
  failureLines,
  failureListsOf,
  regressionsOf,
  titleOf,
} from './message-parts.js';

/** Slack's documented limits: 50 blocks, a header's 150 characters, a section's 3,000, 10 fields. */
export const SlackLimits = {
  blocks: 50,
  header: 150,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  text: 40_000,
} as const;

/** Slack's mrkdwn needs only &, < and > escaped; a link is `<url|text>`. */
const mrkdwn = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const linked = (text: string, url: string | null) =>
  url ? `<${url}|${mrkdwn(text)}>` : mrkdwn(text);

/**
 * A build or release in Block Kit: a header with the status, the facts as fields, the
 * description, the failed tests, and links to the run and the project page; `text` is the
 * notification's fallback (and carries the mention of a failure).
 */
export function slackMessage(event: EventSummary, mention: string | null) {
  const L = SlackLimits;
  const title = titleOf(event);
  const blocks: unknown[] = [
    { type: 'header', text: { type: 'plain_text', text: cut(title, L.header), emoji: true } },
  ];
  const fields = factsOf(event)
    .slice(0, L.fields)
    .map((fact) => ({
      type: 'mrkdwn',
      text: cut(`*${fact.label}*\n${linked(fact.value, fact.url)}`, L.fieldText),
    }));
  if (fields.length > 0) blocks.push({ type: 'section', fields });
  const body = bodyOf(event);
  if (body) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: cut(mrkdwn(body), L.sectionText) },
    });
  }
  for (const list of failureListsOf(event)) {
    const lines = failureLines(list, '• ', mrkdwn).join('\n');
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: cut(`*${mrkdwn(list.title)}*\n${lines}`, L.sectionText) },
    });
  }
  const regressions = regressionsOf(event);
  if (regressions) {
    const lines = regressions.lines.map((line) => `• ${mrkdwn(line)}`).join('\n');
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: cut(`*${regressions.title}*\n${lines}`, L.sectionText) },
    });
  }
  const links = [
    event.runUrl && `<${event.runUrl}|Open the run>`,
    event.pageUrl && `<${event.pageUrl}|${mrkdwn(event.projectName)} on ci-stats>`,
  ].filter(Boolean);
  if (links.length > 0) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: links.join('  ·  ') }] });
  }
  const text = cut(`${mention ? `${mention} ` : ''}${mrkdwn(title)}`, L.text);
  return { text, blocks: blocks.slice(0, L.blocks) };
}
