import { randomBytes } from 'node:crypto';
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
  /**
   * The person's answer on the fake authorize page: `approve` (the default) sends the browser
   * back with a code, `deny` with `error=access_denied`.
   */
  decide: (decision: 'approve' | 'deny') => void;
  /** A code as the authorize page issues it for `redirectUri` (the person approved). */
  issueCode: (redirectUri: string) => string;
  /** The bot tokens oauth.v2.access issued, in order. */
  issuedTokens: () => string[];
}

/** The operator's Slack app, and what an installation of it picks. */
export interface FakeSlackApp {
  clientId: string;
  clientSecret: string;
  team: { id: string; name: string };
  /** The workspace's subdomain (`acme` for acme.slack.com). */
  workspace: string;
  /** The channel the person picks on the authorize page (one of the fake's channels). */
  channel: { id: string; name: string };
  /** How long a code lasts (Slack: 10 minutes). */
  codeTtlMs?: number;
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
export function fakeSlackApi(
  tokens: readonly string[],
  channels: readonly string[],
  app?: FakeSlackApp,
): FakeSlackApi {
  const known = new Set(tokens);
  const revoked = new Set<string>();
  const messages = new Map<string, SlackMessageState>();
  const lastPost = new Map<string, number>();
  const updates: number[] = [];
  let clock = 1_700_000_000_000_000n;
  const oks: RecordedRequest[] = [];
  const fail = (error: string): Reply => ({ status: 200, body: { ok: false, error } });

  const oauth = app && fakeSlackOAuth(app, known);
  const answer = (request: RecordedRequest): Reply => {
    const handled = oauth?.answer(request);
    if (handled) return handled;
    const method = /^\/api\/(chat\.postMessage|chat\.update)$/.exec(request.path)?.[1];
    if (request.method !== 'POST' || !method) {
      return { status: 404, body: { ok: false, error: 'unknown_method' } };
    }
    const auth = request.headers.authorization;
    if (!auth) return fail('not_authed');
    const token = /^Bearer (.+)$/.exec(auth)?.[1] ?? '';
    if (!known.has(token) || revoked.has(token)) return fail('invalid_auth');
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
    decide: (decision) => {
      if (!oauth) throw new Error('the fake Slack has no app');
      oauth.decision = decision;
    },
    issueCode: (redirectUri) => {
      if (!oauth) throw new Error('the fake Slack has no app');
      return oauth.issue(redirectUri, Date.now());
    },
    issuedTokens: () => [...(oauth?.issued ?? [])],
  };
}

/**
 * Slack's OAuth v2 for one app. `GET /oauth/v2/authorize` stands for Slack's page: it checks the
 * client id and the scopes, then (the person's decision) redirects to `redirect_uri` with a code
 * and the state, or with `error=access_denied`. `POST /api/oauth.v2.access` exchanges a code as
 * Slack does: a form-encoded body only (`invalid_form_data`), the app's client id and secret
 * (`invalid_client_id`, `bad_client_secret`), a code it issued, once, within its lifetime
 * (`invalid_code`), and the same `redirect_uri` as the authorize step (`bad_redirect_uri`). The
 * answer is Slack's: the bot token, its user, the team and the picked channel's incoming webhook.
 */
function fakeSlackOAuth(app: FakeSlackApp, known: Set<string>) {
  const codes = new Map<string, { redirectUri: string; at: number }>();
  const issued: string[] = [];
  const fail = (error: string): Reply => ({ status: 200, body: { ok: false, error } });
  const state = {
    decision: 'approve' as 'approve' | 'deny',
    issued,
    issue(redirectUri: string, at: number): string {
      const code = `${app.team.id}.${randomBytes(12).toString('hex')}`;
      codes.set(code, { redirectUri, at });
      return code;
    },
    answer(request: RecordedRequest): Reply | undefined {
      if (request.path === '/oauth/v2/authorize') return authorize(request);
      if (request.path === '/api/oauth.v2.access') return access(request);
      return undefined;
    },
  };

  const authorize = (request: RecordedRequest): Reply => {
    const q = request.query;
    if (request.method !== 'GET') return { status: 405, text: 'method not allowed' };
    if (q.get('client_id') !== app.clientId) return { status: 400, text: 'invalid_client_id' };
    const scopes = (q.get('scope') ?? '').split(',');
    if (!scopes.includes('chat:write')) return { status: 400, text: 'invalid_scope' };
    const redirectUri = q.get('redirect_uri');
    if (!redirectUri) return { status: 400, text: 'bad_redirect_uri' };
    const back = new URL(redirectUri);
    if (state.decision === 'deny') back.searchParams.set('error', 'access_denied');
    else back.searchParams.set('code', state.issue(redirectUri, request.at));
    const given = q.get('state');
    if (given !== null) back.searchParams.set('state', given);
    return { status: 302, headers: { location: back.href } };
  };

  const access = (request: RecordedRequest): Reply => {
    if (request.method !== 'POST') return fail('invalid_form_data');
    const type = String(request.headers['content-type'] ?? '');
    if (!type.startsWith('application/x-www-form-urlencoded')) return fail('invalid_form_data');
    const form = (request.body ?? {}) as Record<string, string>;
    if (form.client_id !== app.clientId) return fail('invalid_client_id');
    if (form.client_secret !== app.clientSecret) return fail('bad_client_secret');
    const code = form.code === undefined ? undefined : codes.get(form.code);
    // A code is good once: used or expired, it is gone.
    if (form.code !== undefined) codes.delete(form.code);
    if (!code || request.at - code.at > (app.codeTtlMs ?? 600_000)) return fail('invalid_code');
    if (form.redirect_uri !== code.redirectUri) return fail('bad_redirect_uri');
    const token = `xoxb-${app.team.id}-${randomBytes(16).toString('hex')}`;
    known.add(token);
    issued.push(token);
    return {
      status: 200,
      body: {
        ok: true,
        app_id: 'A0FAKEAPP',
        authed_user: { id: 'U0INSTALLER' },
        scope: 'chat:write,chat:write.public,incoming-webhook',
        token_type: 'bot',
        access_token: token,
        bot_user_id: 'U0FAKEBOT',
        team: app.team,
        enterprise: null,
        is_enterprise_install: false,
        incoming_webhook: {
          channel: app.channel.name,
          channel_id: app.channel.id,
          configuration_url: `https://${app.workspace}.slack.com/services/B0FAKEHOOK`,
          url: `https://hooks.slack.com/services/${app.team.id}/B0FAKEHOOK/${randomBytes(12).toString('hex')}`,
        },
      },
    };
  };
  return state;
}
