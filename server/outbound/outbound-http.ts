import { Agent, request } from 'undici';
import { parseRetryAfter } from '../../contract/retry.js';
import { DeliveryError, redact } from './delivery-error.js';

export type ResponseHeaders = Record<string, string | string[] | undefined>;

export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  json?: unknown;
  /** A body already serialised as JSON (when its exact bytes are signed); instead of `json`. */
  jsonText?: string;
  /** An `application/x-www-form-urlencoded` body (OAuth token endpoints); instead of `json`. */
  form?: Record<string, string>;
  /** Text that must never appear in an error message (tokens, keys). */
  secrets: readonly string[];
  /** What the error messages call the service, e.g. "Discord". */
  service: string;
  /** How long a 429 asks to wait when it says so other than in `Retry-After` (a service's own way). */
  retryAfter?: (headers: ResponseHeaders, body: unknown) => number | undefined;
  /** Sees every answer's status and headers, whatever the status (e.g. a service's rate limits). */
  onAnswer?: (status: number, headers: ResponseHeaders, body: unknown) => void;
}

/** How connections are made: a `lookup` that judges addresses (public-address.ts). */
export interface ConnectOptions {
  lookup?: (...args: never[]) => void;
}

export interface OutboundResponse {
  status: number;
  body: unknown;
}

const MAX_BODY_BYTES = 64 * 1024;

/**
 * The one way the server talks to other hosts: a timeout on connect and on the whole exchange,
 * redirects never followed (a 3xx is a failure), bodies read up to 64 KiB.
 * Answers other than 2xx become DeliveryErrors, classified for the outbox.
 */
export class OutboundHttp {
  readonly #agent: Agent;
  readonly #timeoutMs: number;

  constructor(timeoutMs: number, connect: ConnectOptions = {}) {
    this.#timeoutMs = timeoutMs;
    this.#agent = new Agent({
      connect: { timeout: Math.min(timeoutMs, 5_000), ...connect },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  /** Sends the request; resolves for 2xx and for the statuses in `accept`, else throws. */
  async send(req: OutboundRequest, accept: readonly number[] = []): Promise<OutboundResponse> {
    let status: number;
    let headers: ResponseHeaders;
    let text: string;
    try {
      const form = req.form && new URLSearchParams(req.form).toString();
      const body =
        form ?? req.jsonText ?? (req.json === undefined ? undefined : JSON.stringify(req.json));
      const type = form === undefined ? 'application/json' : 'application/x-www-form-urlencoded';
      const response = await request(req.url, {
        method: req.method,
        dispatcher: this.#agent,
        signal: AbortSignal.timeout(this.#timeoutMs),
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': type }),
          ...req.headers,
        },
        body,
      });
      status = response.statusCode;
      headers = response.headers;
      text = await readLimited(response.body);
    } catch (error) {
      const reason =
        (error as Error).name === 'TimeoutError' ? 'timed out' : (error as Error).message;
      // An address refused by the connection's lookup (public-address.ts) stays refused.
      const refused = [error, (error as { cause?: unknown }).cause].some(
        (e) => (e as { code?: unknown } | undefined)?.code === 'EPUBLICONLY',
      );
      throw new DeliveryError(redact(`${req.service}: ${reason}`, req.secrets), !refused);
    }

    const body = parseJson(text);
    req.onAnswer?.(status, headers, body);
    if ((status >= 200 && status < 300) || accept.includes(status)) return { status, body };
    const detail = redact(
      `${req.service} answered HTTP ${status}${excerpt(body, text)}`,
      req.secrets,
    );
    if (status >= 300 && status < 400) {
      throw new DeliveryError(`${detail} (redirect refused)`, false, undefined, status);
    }
    if (status === 429) {
      const wait = parseRetryAfter(headers['retry-after']) ?? req.retryAfter?.(headers, body);
      throw new DeliveryError(detail, true, wait, status);
    }
    // Other services may answer 408 to a slow request; sending it again can succeed.
    const retryable = status >= 500 || status === 408;
    throw new DeliveryError(detail, retryable, undefined, status);
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_BODY_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_BODY_BYTES);
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A short, single-line hint of what the service said. */
function excerpt(body: unknown, text: string): string {
  const message =
    typeof body === 'object' && body !== null && 'message' in body
      ? String((body as { message: unknown }).message)
      : text;
  const line = message.replace(/\s+/g, ' ').trim().slice(0, 200);
  return line ? `: ${line}` : '';
}
