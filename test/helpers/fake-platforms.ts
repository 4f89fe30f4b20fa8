import { FakeService, type RecordedRequest, type Reply } from './fake-service.js';

/**
 * Fake chat platforms on 127.0.0.1 that enforce what the real ones document: their URL's secret,
 * their payload's shape and size limits, and their rate limits (answered 429 as they answer it).
 * Each counts the 429s it gave, so a test can assert pacing never earned one.
 */
export interface FakePlatform {
  service: FakeService;
  /** Requests answered 429. */
  limited: () => number;
  /** Requests accepted (2xx), in arrival order. */
  accepted: () => RecordedRequest[];
}

function platform(script: (request: RecordedRequest) => Reply): FakePlatform {
  const service = new FakeService().script(script);
  return {
    service,
    limited: () => service.requests.filter((r) => r.replied === 429).length,
    accepted: () => service.requests.filter((r) => r.replied !== undefined && r.replied < 300),
  };
}

type Field = { name: string; value: string };
const chars = (value: unknown) => (typeof value === 'string' ? value.length : 0);

/** A message a fake Discord holds: what it shows now, and how often it was edited. */
export interface DiscordMessageState {
  id: string;
  webhookId: string;
  threadId: string | null;
  body: { content?: string; embeds?: Record<string, unknown>[] };
  edits: number;
}

export interface FakeDiscord extends FakePlatform {
  /** The messages posted, in order, each as it reads now. */
  messages: () => DiscordMessageState[];
  /** Deletes a message as a user would in Discord: its edits then answer 404 Unknown Message. */
  deleteMessage: (id: string) => void;
}

/**
 * Discord's execute-webhook and edit-webhook-message: `POST /api/webhooks/<id>/<token>` and
 * `PATCH /api/webhooks/<id>/<token>/messages/<message id>` with a known token (else 401, as
 * Discord's "Invalid Webhook Token"), embeds within Discord's limits (else 400, code 50035), at
 * most 5 requests per 2 s per webhook, posts and edits together (else 429 with `retry_after`, and
 * after 10 of those a ban: 403 for good). A post answers 204 with no body unless `?wait=true`,
 * which answers the message (its id); an edit answers the message, or 404 Unknown Message (10008)
 * for a message that is not this webhook's (or was deleted), or not in the `thread_id` the edit
 * names. A `thread_id` must be a snowflake (else 400, 50035) and, for a webhook given `threads`,
 * one of its channel's threads (else 400 Unknown Channel, 10003). Every answer has the
 * X-RateLimit headers.
 */
export function fakeDiscord(
  tokens: Record<string, string>,
  threads: Record<string, readonly string[]> = {},
): FakeDiscord {
  const WINDOW_MS = 2_000;
  const LIMIT = 5;
  const sent = new Map<string, number[]>();
  const messages = new Map<string, DiscordMessageState>();
  let rateLimited = 0;
  let messageId = 1_000_000_000_000_000n;
  const fake = platform((request): Reply => {
    if (rateLimited >= 10) return { status: 403, body: { message: 'banned', code: 40333 } };
    const match = /^\/api\/webhooks\/(\d+)\/([^/]+)(?:\/messages\/(\d+))?$/.exec(request.path);
    const editing = match?.[3];
    const allowed = editing === undefined ? request.method === 'POST' : request.method === 'PATCH';
    if (!allowed || !match || tokens[match[1] as string] !== match[2]) {
      return { status: 401, body: { message: 'Invalid Webhook Token', code: 50027 } };
    }
    const id = match[1] as string;
    const recent = (sent.get(id) ?? []).filter((at) => request.at - at < WINDOW_MS);
    if (recent.length >= LIMIT) {
      rateLimited += 1;
      const wait = (WINDOW_MS - (request.at - (recent[0] as number))) / 1000;
      return {
        status: 429,
        body: { message: 'You are being rate limited.', retry_after: wait, global: false },
        headers: { 'retry-after': String(Math.ceil(wait)), 'x-ratelimit-remaining': '0' },
      };
    }
    // Every request the limit let through counts against it, refused or not.
    recent.push(request.at);
    sent.set(id, recent);
    const resetAfter = (WINDOW_MS - (request.at - (recent[0] as number))) / 1000;
    const limits = {
      'x-ratelimit-limit': String(LIMIT),
      'x-ratelimit-remaining': String(LIMIT - recent.length),
      'x-ratelimit-reset-after': resetAfter.toFixed(3),
      'x-ratelimit-bucket': `webhook-${id}`,
    };
    const threadId = request.query.get('thread_id');
    if (threadId !== null && !/^\d{17,20}$/.test(threadId)) {
      return { status: 400, body: { message: 'Invalid Form Body', code: 50035 }, headers: limits };
    }
    const known = threads[id];
    if (threadId !== null && known !== undefined && !known.includes(threadId)) {
      return { status: 400, body: { message: 'Unknown Channel', code: 10003 }, headers: limits };
    }
    const target = editing === undefined ? undefined : messages.get(editing);
    if (editing !== undefined && (target?.webhookId !== id || target.threadId !== threadId)) {
      return { status: 404, body: { message: 'Unknown Message', code: 10008 }, headers: limits };
    }
    const body = request.body as { embeds?: Record<string, unknown>[]; content?: string };
    const embeds = body.embeds ?? [];
    const total = embeds.reduce((n, e) => {
      const fields = (e.fields as { name: string; value: string }[] | undefined) ?? [];
      return (
        n +
        chars(e.title) +
        chars(e.description) +
        chars((e.footer as { text?: string } | undefined)?.text) +
        fields.reduce((m, f) => m + f.name.length + f.value.length, 0)
      );
    }, 0);
    const invalid =
      embeds.length > 10 ||
      chars(body.content) > 2000 ||
      total > 6000 ||
      embeds.some(
        (e) =>
          chars(e.title) > 256 ||
          chars(e.description) > 4096 ||
          ((e.fields as unknown[] | undefined)?.length ?? 0) > 25 ||
          ((e.fields as Field[] | undefined) ?? []).some(
            (f) => f.name.length > 256 || f.value.length > 1024,
          ),
      );
    if (invalid || (embeds.length === 0 && !body.content)) {
      return { status: 400, body: { message: 'Invalid Form Body', code: 50035 }, headers: limits };
    }
    let message: DiscordMessageState;
    if (target) {
      target.body = body;
      target.edits += 1;
      message = target;
    } else {
      messageId += 1n;
      message = { id: String(messageId), webhookId: id, threadId, body, edits: 0 };
      messages.set(message.id, message);
      if (request.query.get('wait') !== 'true') return { status: 204, headers: limits };
    }
    return {
      status: 200,
      body: { id: message.id, channel_id: '1', content: body.content ?? '' },
      headers: limits,
    };
  });
  return {
    ...fake,
    messages: () => [...messages.values()],
    deleteMessage: (id) => void messages.delete(id),
  };
}

/**
 * A Slack incoming webhook: `/services/<T>/<B>/<secret>` with a known secret (else 404
 * `no_service`), `text` or `blocks` within Block Kit's limits (else 400 `invalid_blocks`), at most
 * one message per second per webhook (else 429 `rate_limited` with Retry-After: 1); `ok` as text.
 */
export function fakeSlack(paths: readonly string[]): FakePlatform {
  const last = new Map<string, number>();
  return platform((request): Reply => {
    if (request.method !== 'POST' || !paths.includes(request.path)) {
      return { status: 404, text: 'no_service' };
    }
    const previous = last.get(request.path);
    if (previous !== undefined && request.at - previous < 1_000) {
      return { status: 429, text: 'rate_limited', headers: { 'retry-after': '1' } };
    }
    const body = request.body as { text?: string; blocks?: Record<string, unknown>[] };
    const blocks = body.blocks ?? [];
    const invalid =
      blocks.length > 50 ||
      blocks.some((block) => {
        const text = (block.text as { text?: string } | undefined)?.text;
        const fields = (block.fields as { text: string }[] | undefined) ?? [];
        return (
          (block.type === 'header' && chars(text) > 150) ||
          chars(text) > 3000 ||
          fields.length > 10 ||
          fields.some((f) => f.text.length > 2000)
        );
      });
    if (invalid) return { status: 400, text: 'invalid_blocks' };
    if (!body.text && blocks.length === 0) return { status: 400, text: 'no_text' };
    last.set(request.path, request.at);
    return { status: 200, text: 'ok' };
  });
}

/**
 * A Teams workflow webhook: `/workflows/<id>/…` with its `sig` (else 401), a `message` whose
 * attachment is an Adaptive Card (else 400), at most 28 KB (else 413), and no more than four
 * requests per second (else 429 with Retry-After); 202 Accepted, as Power Automate answers.
 */
export function fakeTeams(sig: string): FakePlatform {
  const times: number[] = [];
  return platform((request): Reply => {
    if (request.method !== 'POST' || !request.path.startsWith('/workflows/')) {
      return { status: 404, body: { error: { code: 'WorkflowNotFound' } } };
    }
    if (request.query.get('sig') !== sig) {
      return { status: 401, body: { error: { code: 'DirectApiAuthorizationRequired' } } };
    }
    const recent = times.filter((at) => request.at - at < 1_000);
    if (recent.length >= 4) {
      return {
        status: 429,
        body: { error: { code: 'TooManyRequests' } },
        headers: { 'retry-after': '1' },
      };
    }
    if (Buffer.byteLength(request.raw) > 28 * 1024) return { status: 413, body: {} };
    const body = request.body as {
      type?: string;
      attachments?: { contentType?: string; content?: { type?: string; body?: unknown[] } }[];
    };
    const card = body.attachments?.[0];
    if (
      body.type !== 'message' ||
      card?.contentType !== 'application/vnd.microsoft.card.adaptive' ||
      card.content?.type !== 'AdaptiveCard' ||
      !Array.isArray(card.content.body)
    ) {
      return { status: 400, body: { error: { code: 'InvalidRequestContent' } } };
    }
    times.push(request.at);
    return { status: 202 };
  });
}
