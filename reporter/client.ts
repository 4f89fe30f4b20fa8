import pRetry from 'p-retry';
import { Headers } from '../contract/headers.js';
import { quickIngestAnswer } from '../contract/ingest-check.js';
import { Paths } from '../contract/paths.js';
import { isRetryableStatus, parseRetryAfter } from '../contract/retry.js';
import type { QuarantinedTest } from '../contract/tests/quarantine.js';
import { answerWithin } from './deadline.js';
import type { AnyRequest } from './requests.js';
import { loadContractSchemas } from './schemas-loader.js';
import { quarantineList, testsAnswer } from './tests/tests-answer.js';
import { COMPARE_PATH, type Comparison, readComparison } from './verdict/comparison.js';

/** The step waits at most this long for a Retry-After; a longer ask fails the request. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Backoff before retry `n` (1-based): 1 s, 2 s, 4 s... each stretched by a random 1-2x. */
export const BACKOFF = {
  minTimeout: 1_000,
  factor: 2,
  maxTimeout: 30_000,
  randomize: true,
} as const;

export interface Acknowledgement {
  id: string;
  message: string;
  /** The server answered from an earlier attempt with the same Idempotency-Key. */
  replayed: boolean;
  /** The server takes gzip request bodies (its `Accept-Encoding`, RFC 7694). */
  acceptsGzip?: boolean;
}

/** Sends planned requests; the real client talks HTTP, the dry-run one only prints. */
export interface StatsClient {
  send(request: AnyRequest): Promise<Acknowledgement>;
  /** The project's quarantined tests (`--quarantine`); a dry run has none to read. */
  quarantined?(projectId: string): Promise<QuarantinedTest[]>;
}

/**
 * A request that was not stored.
 * - `refused`: the server said no to the request itself (a 3xx, or a 4xx other than 429: wrong
 *   key, foreign project, rejected body). That is a configuration error, and final.
 * - `unavailable`: network error, timeout, 429 or 5xx; another attempt may succeed.
 * - `final`: unavailable, but asking for a wait the step will not make (Retry-After over 60 s).
 */
export class SendFailure extends Error {
  constructor(
    message: string,
    readonly kind: 'refused' | 'unavailable' | 'final',
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'SendFailure';
  }

  get refused(): boolean {
    return this.kind === 'refused';
  }
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP exchange, which the client may abandon at its deadline. */
export interface Exchange {
  /** Resolves with the whole answer, whatever its status; rejects on a network error. */
  response: Promise<TransportResponse>;
  /** Tears down what the exchange holds open. */
  abandon(): void;
}

/** How requests leave the process (the runner's proxy settings are the transport's concern). */
export interface Transport {
  post(
    url: string,
    body: string | Uint8Array,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Exchange;
  /** Any method; `body` undefined for none (a GET). */
  request(
    method: string,
    url: string,
    body: string | Uint8Array | undefined,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Exchange;
}

export interface HttpClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutSeconds: number;
  retries: number;
  /** Progress lines for the log. */
  log: (line: string) => void;
  userAgent: string;
}

/** Bodies encoded ahead of their send (encodedBody), and reused by a retry. */
const encodedBodies = new WeakMap<AnyRequest, string | Uint8Array>();

/**
 * What goes on the wire for `request`: its JSON, gzip-compressed for a batch of test cases the
 * server said it takes compressed. Encoded once: sendTests encodes a batch while the one before
 * it is in flight, so that the server is not kept waiting for it.
 */
export function encodedBody(request: AnyRequest): string | Uint8Array {
  let body = encodedBodies.get(request);
  if (body === undefined) {
    const json = JSON.stringify(request.body);
    // Loaded only for a batch of test cases the server said it takes compressed.
    body = request.gzip ? process.getBuiltinModule('node:zlib').gzipSync(json, { level: 6 }) : json;
    encodedBodies.set(request, body);
  }
  return body;
}

/**
 * Sends each request over the transport. Each attempt must be answered within `timeoutSeconds`,
 * headers and body; p-retry repeats attempts that failed on the network, timed out, or got 429 or
 * 5xx, with exponential backoff and jitter, after first waiting out a Retry-After (up to 60 s).
 * A 2xx must match the contract's response schema.
 */
export class HttpStatsClient implements StatsClient {
  /** An attempt was given up while its request may still be open (the entry may exit at once). */
  abandonedRequests = false;

  constructor(
    private readonly transport: Transport,
    private readonly options: HttpClientOptions,
  ) {}

  /** The client an entry needs for its inputs: none for a dry run. */
  static forInputs(
    transport: Transport,
    inputs: Pick<HttpClientOptions, 'baseUrl' | 'apiKey' | 'timeoutSeconds' | 'retries'> & {
      dryRun: boolean;
    },
    log: (line: string) => void,
    userAgent: string,
  ): HttpStatsClient | undefined {
    if (inputs.dryRun) return undefined;
    const { baseUrl, apiKey, timeoutSeconds, retries } = inputs;
    return new HttpStatsClient(transport, {
      baseUrl,
      apiKey,
      timeoutSeconds,
      retries,
      log,
      userAgent,
    });
  }

  send(request: AnyRequest): Promise<Acknowledgement> {
    return this.#withRetries(() => this.#attempt(request), request.kind);
  }

  /**
   * The server's verdict on a stored metric record (`GET /stats/compare`), with the same retries
   * and deadline as a send. Throws a SendFailure when there is none to be had.
   */
  compare(projectId: string, recordId: string): Promise<Comparison> {
    const path = `${COMPARE_PATH}?${new URLSearchParams({ projectId, record: recordId })}`;
    return this.#get(path, readComparison, 'a comparison');
  }

  /** The project's quarantined tests (`GET /stats/get-quarantine`), with the same retries. */
  quarantined(projectId: string): Promise<QuarantinedTest[]> {
    const path = `${Paths.getQuarantine}?${new URLSearchParams({ projectId })}`;
    return this.#get(path, quarantineList, 'a quarantine list');
  }

  /** A GET whose 200 answer `read` accepts, or a SendFailure; retried like a send. */
  #get<T>(path: string, read: (body: unknown) => T | undefined, what: string): Promise<T> {
    const { userAgent, baseUrl, apiKey } = this.options;
    return this.#withRetries(async () => {
      const answer = await this.#answerOf(
        this.transport.request(
          'GET',
          `${baseUrl}${path}`,
          undefined,
          { accept: 'application/json', 'user-agent': userAgent, [Headers.apiKey]: apiKey },
          this.options.timeoutSeconds * 1000,
        ),
      );
      const body = parseJson(answer.body);
      const value = answer.status === 200 ? read(body) : undefined;
      if (value !== undefined) return value;
      if (answer.status === 200)
        throw new SendFailure(`HTTP 200: the answer is not ${what}`, 'refused');
      throw failureOf(answer.status, answer.headers, body, [apiKey]);
    });
  }

  /**
   * Repeats attempts that failed on the network, timed out, or got 429 or 5xx, with exponential
   * backoff and jitter, after first waiting out a Retry-After; `label` names a retry in the log.
   */
  #withRetries<T>(attempt: () => Promise<T>, label?: string): Promise<T> {
    const { log, retries } = this.options;
    return pRetry(attempt, {
      retries,
      ...BACKOFF,
      shouldRetry: ({ error }) => error instanceof SendFailure && error.kind === 'unavailable',
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        const failure = error as SendFailure;
        if (failure.kind !== 'unavailable' || retriesLeft === 0) return;
        if (label)
          log(`${label}: attempt ${attemptNumber} failed (${failure.message}); trying again`);
        if (failure.retryAfterMs)
          await new Promise((resolve) => setTimeout(resolve, failure.retryAfterMs));
      },
    });
  }

  /** The exchange's whole answer within `timeoutSeconds`, or a SendFailure (`unavailable`). */
  #answerOf(exchange: Exchange): Promise<TransportResponse> {
    const { timeoutSeconds } = this.options;
    const response = exchange.response.catch((error: Error) => {
      throw new SendFailure(`no answer: ${error.message}`, 'unavailable');
    });
    return answerWithin({ ...exchange, response }, timeoutSeconds * 1000, () => {
      this.abandonedRequests = true;
      return new SendFailure(`no answer within ${timeoutSeconds} s`, 'unavailable');
    });
  }

  async #attempt(request: AnyRequest): Promise<Acknowledgement> {
    const { timeoutSeconds, userAgent, baseUrl, apiKey } = this.options;
    const timeoutMs = timeoutSeconds * 1000;
    const body = encodedBody(request);
    const exchange = this.transport.post(
      `${baseUrl}${request.path}`,
      body,
      {
        ...(request.gzip ? { 'content-encoding': 'gzip' } : {}),
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': userAgent,
        [Headers.apiKey]: apiKey,
        [Headers.idempotencyKey]: request.idempotencyKey,
      },
      timeoutMs,
    );
    const answer = await this.#answerOf(exchange);
    const webhook = (request.body as { chatWebhook?: { url?: string } }).chatWebhook?.url;
    return judge(request, answer, [apiKey, webhook]);
  }
}

/** Issues shown of a 400, and characters of each: enough to fix a request, bounded. */
const MAX_SHOWN_ISSUES = 5;
const MAX_ISSUE_CHARS = 200;

/**
 * A 400's `issues` (`[{ path, message }]`, each offending field and why) as text for the error
 * message, e.g. ` (payload: too deeply nested; color: too big)`. The server names fields, not
 * values, but whatever it says goes through `mask` first: the key and the webhook URL never show.
 */
function issuesText(body: unknown, mask: (text: string) => string): string {
  const issues = (body as { issues?: unknown } | undefined)?.issues;
  if (!Array.isArray(issues)) return '';
  const shown = issues
    .filter(
      (issue): issue is { path: string; message: string } =>
        typeof issue?.path === 'string' && typeof issue?.message === 'string',
    )
    .map(({ path, message }) =>
      mask(`${path === '' ? '(body)' : path}: ${message}`).slice(0, MAX_ISSUE_CHARS),
    );
  if (shown.length === 0) return '';
  const more =
    shown.length > MAX_SHOWN_ISSUES ? `; and ${shown.length - MAX_SHOWN_ISSUES} more` : '';
  return ` (${shown.slice(0, MAX_SHOWN_ISSUES).join('; ')}${more})`;
}

/** Replaces each secret, and any Discord webhook token, with `***`. */
function masker(secrets: (string | undefined)[]): (text: string) => string {
  const known = secrets.filter((secret): secret is string => (secret?.length ?? 0) >= 4);
  return (text) =>
    known
      .reduce((masked, secret) => masked.replaceAll(secret, '***'), text)
      .replace(/(webhooks\/[^/\s]+\/)[^\s?#"']+/g, '$1***');
}

/**
 * A 2xx answer as the contract's response schema parses it, or undefined where it refuses it. The
 * quick check gives the schema's result for the usual answer; anything else goes to the schema.
 */
async function acknowledged(kind: AnyRequest['kind'], body: unknown) {
  if (kind === 'tests') return testsAnswer(body);
  const quick = quickIngestAnswer(body);
  if (quick) return quick;
  const schemas = await loadContractSchemas();
  const schema = kind === 'event' ? schemas.IngestEventResponse : schemas.IngestMetricResponse;
  const result = schema.safeParse(body);
  return result.success ? result.data : undefined;
}

/** What an answer means: the acknowledgement, or why not. */
async function judge(
  request: AnyRequest,
  { status, headers, body: text }: TransportResponse,
  secrets: (string | undefined)[],
) {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page): the status says enough.
  }
  const replayed = headers[Headers.idempotentReplayed] === 'true';
  if (status >= 200 && status < 300) {
    const answer = await acknowledged(request.kind, body);
    if (answer && request.kind === 'tests') {
      const acceptsGzip = /\bgzip\b/i.test(String(headers['accept-encoding'] ?? ''));
      return { ...answer, replayed, acceptsGzip };
    }
    if (answer) return { ...answer, replayed };
  }
  throw failureOf(status, headers, body, secrets);
}

/** Why an answer is not the one wanted: refused for good, or worth another attempt. */
function failureOf(
  status: number,
  headers: TransportResponse['headers'],
  body: unknown,
  secrets: (string | undefined)[],
): SendFailure {
  const error = (body as { error?: unknown } | undefined)?.error;
  const mask = masker(secrets);
  const said = typeof error === 'string' ? `: ${mask(error)}` : '';
  const reason = `HTTP ${status}${said}${issuesText(body, mask)}`;
  if (!isRetryableStatus(status)) return new SendFailure(reason, 'refused');
  const wait = parseRetryAfter(headers[Headers.retryAfter]);
  if (wait !== undefined && wait > MAX_RETRY_AFTER_MS) {
    return new SendFailure(
      `${reason} (the server asks to wait ${Math.round(wait / 1000)} s)`,
      'final',
    );
  }
  return new SendFailure(reason, 'unavailable', wait);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page): the status says enough.
    return undefined;
  }
}

/** `dry-run`: validates and prints what would be sent, with the webhook URL masked. */
export class DryRunStatsClient implements StatsClient {
  constructor(private readonly print: (line: string) => void) {}

  async send(request: AnyRequest): Promise<Acknowledgement> {
    if (request.kind === 'tests') {
      // Thousands of cases: their count, not their text.
      const cases = (request.body as { cases: unknown[] }).cases.length;
      this.print(
        `dry run: POST ${request.path} (Idempotency-Key ${request.idempotencyKey}): ${cases} test cases`,
      );
      return { id: '', message: 'dry run: not sent', replayed: false };
    }
    const body = structuredClone(request.body) as { chatWebhook?: { url: string } };
    if (body.chatWebhook) body.chatWebhook.url = '***';
    this.print(`dry run: POST ${request.path} (Idempotency-Key ${request.idempotencyKey})`);
    this.print(JSON.stringify(body, null, 2));
    return { id: '', message: 'dry run: not sent', replayed: false };
  }
}
