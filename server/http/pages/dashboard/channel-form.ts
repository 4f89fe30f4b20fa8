import { type ChannelRules, NOTIFY_CHOICES } from '../../../../contract/channels.js';
import { textOf } from './dashboard-pages.js';
import type { ChannelForm } from './views/channel-rules-fields.js';

/** Comma- or line-separated globs or types: the API's lists, none when empty. */
const listOf = (text: string): string[] =>
  text
    .split(/[,\n]/)
    .map((part) => part.trim())
    .filter((part) => part !== '');

/** A channel form's fields as typed (the add and the edit forms post the same names). */
export function formOf(body: unknown): ChannelForm {
  const form = (body ?? {}) as Record<string, unknown>;
  const notify = Array.isArray(form.notify) ? form.notify.map(textOf) : [];
  return {
    kind: textOf(form.kind),
    name: textOf(form.name),
    url: textOf(form.url),
    token: textOf(form.token).trim(),
    threadId: textOf(form.thread_id).trim(),
    notify: notify.filter((choice) =>
      (NOTIFY_CHOICES as readonly string[]).includes(choice),
    ) as ChannelForm['notify'],
    branches: textOf(form.branches),
    mention: textOf(form.mention),
    digest: textOf(form.digest),
    digestAt: textOf(form.digestAt) || '09:00',
  };
}

/** The form's rules as the API's `rules` (what the schema then judges). */
export function rulesOf(form: ChannelForm) {
  const branches = listOf(form.branches);
  return {
    notify: form.notify,
    ...(branches.length > 0 ? { branches } : {}),
    ...(form.mention.trim() ? { mention: form.mention.trim() } : {}),
    ...(form.digest === 'day' || form.digest === 'week'
      ? { digest: { every: form.digest, at: form.digestAt } }
      : {}),
  };
}

/** A channel's stored rules as the form shows them to be changed. */
export function formOfChannel(channel: {
  kind: string;
  name: string;
  rules: ChannelRules;
  thread_id?: string | null;
}): ChannelForm {
  const { rules } = channel;
  return {
    kind: channel.kind,
    name: channel.name,
    // Write-only: never shown; blank keeps the stored one.
    url: '',
    token: '',
    threadId: channel.thread_id ?? '',
    notify: rules.notify,
    branches: (rules.branches ?? []).join(', '),
    mention: rules.mention ?? '',
    digest: rules.digest?.every ?? '',
    digestAt: rules.digest?.at ?? '09:00',
  };
}

/** What the form says of a refused field, in its own words. */
export const FORM_TEXTS = {
  notify: 'Tick at least one, or choose a digest.',
  digest: 'Give the digest time as HH:MM, UTC.',
  mention: 'A Discord <@&role> or <@user>, or a Slack <!subteam^ID>, <!here> or <@user>.',
  token: "A Slack app's bot token (xoxb-…), for a Slack app channel only.",
  thread_id: 'A Discord thread id (17 to 20 digits), for a Discord channel only.',
};

/** A schema issue's path (`rules.notify`) as the form field it belongs to. */
export const fieldOf = (path: readonly PropertyKey[]): string | undefined => {
  const [first, second] = path;
  if (first === 'rules' && second === 'digest') return 'digest';
  if (first === 'rules') return typeof second === 'string' ? second : 'notify';
  return typeof first === 'string' ? first : undefined;
};

/** The URL field's refusal, when the service finds it no webhook of the channel's kind. */
export const URL_REFUSED = 'This is not a webhook URL of that kind (HTTPS, on its own hosts).';
