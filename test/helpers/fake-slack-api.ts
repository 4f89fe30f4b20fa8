import type { FakePlatform } from './fake-platforms.js';
import { FakeService, type RecordedRequest, type Reply } from './fake-service.js';

/** A message a fake Slack channel holds: what it shows now, and how often it was edited. */
export interface SlackMessageState {
  channel: string;
  ts: string;
  text: string | undefined;
  blocks: Record<string, unknown>[];
  edits: number;
}

export interface FakeSlackApi extends FakePlatform {
  /** The messages posted, in order, each as it reads now. */
  messages: () => SlackMessageState[];
  /** Deletes a message as a user would in Slack: its edits then answer message_not_found. */
  deleteMessage: (ts: string) => void;
  /** Revokes the token: every call with it answers `invalid_auth` from then on. */
  revoke: (token: string) => void;
}

/**
 * Slack's Web API as a bot token uses it: `POST /api/chat.postMessage` and `/api/chat.update`
 * with `Authorization: Bearer <token>` and a JSON body. As Slack does, it answers HTTP 200 with
 * `{ ok: false, error }` for every refusal (`not_authed`, `invalid_auth`, `channel_not_found`,
 * `not_in_channel`, `no_text`, `invalid_blocks` past 50 blocks, `message_not_found` for an edit
 * of a message that is not in the channel), and HTTP 429 with Retry-After for its rate limits:
 * chat.postMessage at most one message a second per channel, chat.update 50 a minute per token.
 * A post answers the message's `ts` and channel; an edit changes the message and answers its ts.
 */
export function fakeSlackApi(tokens: readonly string[], channels: readonly string[]): FakeSlackApi {
  const revoked = new Set<string>();
  const messages = new Map<string, SlackMessageState>();
  const lastPost = new Map<string, number>();
  const updates: number[] = [];
  let clock = 1_700_000_000_000_000n;
  const oks: RecordedRequest[] = [];
  const fail = (error: string): Reply => ({ status: 200, body: { ok: false, error } });

  const answer = (request: RecordedRequest): Reply => {
    const method = /^\/api\/(chat\.postMessage|chat\.update)$/.exec(request.path)?.[1];
    if (request.method !== 'POST' || !method) {
      return { status: 404, body: { ok: false, error: 'unknown_method' } };
    }
    const auth = request.headers.authorization;
    if (!auth) return fail('not_authed');
    const token = /^Bearer (.+)$/.exec(auth)?.[1] ?? '';
    if (!tokens.includes(token) || revoked.has(token)) return fail('invalid_auth');
    if (!String(request.headers['content-type']).startsWith('application/json')) {
      return fail('invalid_form_data');
    }
    const body = (request.body ?? {}) as {
      channel?: string;
      ts?: string;
      text?: string;
      blocks?: Record<string, unknown>[];
    };
    if (!body.channel || !/^[CGD][A-Z0-9]+$/.test(body.channel)) return fail('channel_not_found');
    if (!channels.includes(body.channel)) return fail('not_in_channel');
    const blocks = body.blocks ?? [];
    if (!body.text && blocks.length === 0) return fail('no_text');
    if (blocks.length > 50) return fail('invalid_blocks');

    if (method === 'chat.postMessage') {
      const previous = lastPost.get(body.channel);
      if (previous !== undefined && request.at - previous < 1_000) {
        return {
          status: 429,
          body: { ok: false, error: 'ratelimited' },
          headers: { 'retry-after': '1' },
        };
      }
      lastPost.set(body.channel, request.at);
      clock += 1000n;
      const ts = `${clock / 1_000_000n}.${String(clock % 1_000_000n).padStart(6, '0')}`;
      messages.set(ts, { channel: body.channel, ts, text: body.text, blocks, edits: 0 });
      return { status: 200, body: { ok: true, channel: body.channel, ts } };
    }
    const recent = updates.filter((at) => request.at - at < 60_000);
    if (recent.length >= 50) {
      return {
        status: 429,
        body: { ok: false, error: 'ratelimited' },
        headers: { 'retry-after': '30' },
      };
    }
    const message = body.ts === undefined ? undefined : messages.get(body.ts);
    if (!message || message.channel !== body.channel) return fail('message_not_found');
    updates.push(request.at);
    message.text = body.text;
    message.blocks = blocks;
    message.edits += 1;
    return { status: 200, body: { ok: true, channel: body.channel, ts: message.ts } };
  };
  const service = new FakeService().script((request) => {
    const reply = answer(request);
    if ('body' in reply && (reply.body as { ok?: boolean }).ok === true) oks.push(request);
    return reply;
  });

  return {
    service,
    limited: () => service.requests.filter((r) => r.replied === 429).length,
    // Answered `ok: true` (Slack's 200s include its refusals).
    accepted: () => [...oks],
    messages: () => [...messages.values()],
    deleteMessage: (ts) => {
      messages.delete(ts);
    },
    revoke: (token) => {
      revoked.add(token);
    },
  };
}
