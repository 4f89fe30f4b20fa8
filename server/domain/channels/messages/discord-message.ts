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

/** Discord's documented limits: embed texts, 25 fields, 6,000 characters in all embeds. */
export const DiscordEmbedLimits = {
  title: 256,
  description: 4096,
  fieldName: 256,
  fieldValue: 1024,
  fields: 25,
  footer: 2048,
  total: 6000,
  content: 2000,
} as const;

/** Only the mention the owner configured may ping; nothing in an event can. */
function allowedMentions(mention: string | null) {
  const role = mention && /^<@&(\d+)>$/.exec(mention);
  if (role) return { parse: [], roles: [role[1]] };
  const user = mention && /^<@(\d+)>$/.exec(mention);
  if (user) return { parse: [], users: [user[1]] };
  return { parse: [] };
}

/**
 * A build or release as one Discord embed: the status colour and word in the title (linked to
 * the run), the facts as inline fields (links in Markdown), the failed tests, and the project's
 * page; `content` carries the mention of a failure.
 */
export function discordMessage(event: EventSummary, mention: string | null) {
  const L = DiscordEmbedLimits;
  const fields = factsOf(event).map((fact) => ({
    name: fact.label,
    value: cut(fact.url ? `[${fact.value}](${fact.url})` : fact.value, L.fieldValue),
    inline: true,
  }));
  for (const list of failureListsOf(event)) {
    fields.push({
      name: cut(list.title, L.fieldName),
      value: cut(failureLines(list, '• ').join('\n'), L.fieldValue),
      inline: false,
    });
  }
  const regressions = regressionsOf(event);
  if (regressions) {
    fields.push({
      name: regressions.title,
      value: cut(regressions.lines.map((line) => `• ${line}`).join('\n'), L.fieldValue),
      inline: false,
    });
  }
  if (event.pageUrl) {
    fields.push({
      name: 'Project',
      value: `[${event.projectName}](${event.pageUrl})`,
      inline: true,
    });
  }
  const title = cut(titleOf(event), L.title);
  const footer = { text: cut(`ci-stats · ${event.eventType}`, L.footer) };
  const kept = fields.slice(0, L.fields);
  let used =
    title.length +
    footer.text.length +
    kept.reduce((n, f) => n + f.name.length + f.value.length, 0);
  // Over the 6,000 characters of an embed: the longest field is cut until it fits.
  while (used > L.total) {
    const longest = kept.reduce((a, b) => (b.value.length > a.value.length ? b : a));
    const value = cut(longest.value, Math.max(longest.value.length - (used - L.total), 1));
    used -= longest.value.length - value.length;
    longest.value = value;
  }
  const body = bodyOf(event);
  const room = Math.min(L.description, L.total - used);
  const url = event.runUrl ?? event.release?.url ?? event.pageUrl;
  return {
    ...(mention ? { content: mention } : {}),
    embeds: [
      {
        title,
        ...(url ? { url } : {}),
        ...(body && room > 0 ? { description: cut(body, room) } : {}),
        color: lookOf(event).color,
        timestamp: event.createdAt,
        fields: kept,
        footer,
      },
    ],
    allowed_mentions: allowedMentions(mention),
  };
}
