import type { IncomingHttpHeaders } from 'node:http';
import { HttpClient } from '@actions/http-client';
import pRetry from 'p-retry';
import { parseRetryAfter } from '../server/outbound/retry-policy.js';
import type { PlannedRequest } from './requests.js';
import { BACKOFF, isRetryableStatus, MAX_RETRY_AFTER_MS } from './retry-policy.js';

export interface Acknowledgement {
  id: string;
  message: string;
  /** The server answered from an earlier attempt with the same Idempotency-Key. */
  replayed: boolean;
}

/** Sends planned requests; the real client talks HTTP, the dry-run one only prints. */
export interface StatsClient {
  send(request: PlannedRequest): Promise<Acknowledgement>;
}

/**
 * A request that was not stored.
 * - `refused`: the server said no to the request itself (a 3xx, or a 4xx other than 429: wrong
 *   key, foreign project, rejected body). That is a configuration error, and final.
 * - `unavailable`: network error, timeout, 429 or 5xx; another attempt may succeed.
 * - `final`: unavailable, but asking for a wait the step will not make (Retry-After over 60 s).
 */
export class DeliveryFailure extends Error {
  constructor(
    message: string,
    readonly kind: 'refused' | 'unavailable' | 'final',
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'DeliveryFailure';
  }

  get refused(): boolean {
    return this.kind === 'refused';
  }
}

export interface HttpClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutSeconds: number;
  retries: number;
  /** Progress lines for the step log. */
  log: (line: string) => void;
  userAgent: string;
}

/**
 * POSTs through @actions/http-client, which honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY like the
 * rest of the Actions toolkit. Each attempt must be answered within `timeout-seconds`, headers
 * and body; p-retry repeats attempts that failed on the network, timed out, or got 429 or 5xx,
 * with exponential backoff and jitter, after first waiting out a Retry-After (up to 60 s).
 * Redirects are not followed.
 */
export class HttpStatsClient implements StatsClient {
  /** An attempt was given up while its request may still be open (see `main.ts`). */
  abandonedRequests = false;

  constructor(private readonly options: HttpClientOptions) {}

  send(request: PlannedRequest): Promise<Acknowledgement> {
    const { log, retries } = this.options;
    return pRetry(() => this.#attempt(request), {
      retries,
      ...BACKOFF,
      shouldRetry: ({ error }) => error instanceof DeliveryFailure && error.kind === 'unavailable',
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        const failure = error as DeliveryFailure;
        if (failure.kind !== 'unavailable' || retriesLeft === 0) return;
        log(`${request.kind}: attempt ${attemptNumber} failed (${failure.message}); trying again`);
        if (failure.retryAfterMs)
          await new Promise((resolve) => setTimeout(resolve, failure.retryAfterMs));
      },
    });
  }

  /** One attempt, on a client of its own so that a late one can be torn down. */
  async #attempt(request: PlannedRequest): Promise<Acknowledgement> {
    const { timeoutSeconds, userAgent } = this.options;
    const http = new HttpClient(userAgent, undefined, {
      socketTimeout: timeoutSeconds * 1000,
      allowRedirects: false,
      allowRetries: false,
      // Its own agent, which dispose() destroys, taking any socket still open with it.
      keepAlive: true,
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.abandonedRequests = true;
        reject(new DeliveryFailure(`no answer within ${timeoutSeconds} s`, 'unavailable'));
      }, timeoutSeconds * 1000);
    });
    try {
      return await Promise.race([this.#exchange(http, request), deadline]);
    } finally {
      clearTimeout(timer);
      http.dispose();
    }
  }

  async #exchange(http: HttpClient, request: PlannedRequest): Promise<Acknowledgement> {
    let status: number;
    let text: string;
    let headers: IncomingHttpHeaders;
    let replayed: boolean;
    try {
      const response = await http.post(
        `${this.options.baseUrl}${request.path}`,
        JSON.stringify(request.body),
        {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-api-key': this.options.apiKey,
          'idempotency-key': request.idempotencyKey,
        },
      );
      status = response.message.statusCode ?? 0;
      headers = response.message.headers;
      replayed = headers['idempotent-replayed'] === 'true';
      text = await response.readBody();
    } catch (error) {
      throw new DeliveryFailure(`no answer: ${(error as Error).message}`, 'unavailable');
    }

    let body: { id?: unknown; message?: unknown; error?: unknown } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // Not JSON (a proxy's error page): the status says enough.
    }
    if (status >= 200 && status < 300 && typeof body.id === 'string') {
      return { id: body.id, message: String(body.message ?? ''), replayed };
    }
    const reason = `HTTP ${status}${typeof body.error === 'string' ? `: ${body.error}` : ''}`;
    if (!isRetryableStatus(status)) throw new DeliveryFailure(reason, 'refused');
    // The server's own reading of Retry-After (seconds or a date, or a body's `retry_after`).
    const wait = parseRetryAfter(headers, body);
    if (wait !== undefined && wait > MAX_RETRY_AFTER_MS) {
      throw new DeliveryFailure(
        `${reason} (the server asks to wait ${Math.round(wait / 1000)} s)`,
        'final',
      );
    }
    throw new DeliveryFailure(reason, 'unavailable', wait);
  }
}

/** `dry-run: true`: validates and prints what would be sent, with the webhook URL masked. */
export class DryRunStatsClient implements StatsClient {
  constructor(private readonly print: (line: string) => void) {}

  async send(request: PlannedRequest): Promise<Acknowledgement> {
    const body = structuredClone(request.body) as { chatWebhook?: { url: string } };
    if (body.chatWebhook) body.chatWebhook.url = '***';
    this.print(`dry run: POST ${request.path} (Idempotency-Key ${request.idempotencyKey})`);
    this.print(JSON.stringify(body, null, 2));
    return { id: '', message: 'dry run: not sent', replayed: false };
  }
}
