import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small real HTTP server on 127.0.0.1 standing in for Discord, ImprovMX or Brevo: it records
 * every request and answers from a script (2xx, 429 with retry_after, 500, hang, redirect...).
 */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** The body's bytes as text, as sent (what a signature covers). */
  raw: string;
  at: number;
  /** What the fake answered; undefined while hanging. */
  replied?: number;
}

export type Reply =
  | {
      status: number;
      body?: unknown;
      /** A body that is not JSON (Slack answers `ok`), sent as text/plain. */
      text?: string;
      headers?: Record<string, string>;
      delayMs?: number;
    }
  /** Accept the request and never answer. */
  | { hang: true }
  /** Close the connection without an answer. */
  | { drop: true }
  /** Send headers, then one byte of body every 100 ms, never ending. */
  | { drip: true };

export type Script = (request: RecordedRequest) => Reply | undefined;

export class FakeService {
  readonly requests: RecordedRequest[] = [];
  #server: Server | undefined;
  #queue: Reply[] = [];
  #script: Script = () => undefined;
  #fallback: Reply = { status: 200, body: { success: true } };
  #hanging: ServerResponse[] = [];
  #held: Promise<void> | undefined;
  #release: (() => void) | undefined;

  /** Answers for the next requests, in order; then the script, then the fallback. */
  queue(...replies: Reply[]): this {
    this.#queue.push(...replies);
    return this;
  }

  script(script: Script): this {
    this.#script = script;
    return this;
  }

  fallback(reply: Reply): this {
    this.#fallback = reply;
    return this;
  }

  /**
   * Holds every answer to a request that arrives from now on until `release()`: those deliveries
   * are in flight meanwhile (answered at once after, as scripted).
   */
  hold(): this {
    this.#held ??= new Promise((resolve) => {
      this.#release = resolve;
    });
    return this;
  }

  release(): void {
    this.#release?.();
    this.#held = undefined;
    this.#release = undefined;
  }

  async start(port = 0): Promise<string> {
    this.#server = createServer((req, res) => this.#handle(req, res));
    this.#server.listen(port, '127.0.0.1');
    await once(this.#server, 'listening');
    return this.origin;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get port(): number {
    const address = this.#server?.address() as AddressInfo | null | undefined;
    if (!address) throw new Error('the fake service is not listening');
    return address.port;
  }

  async stop(): Promise<void> {
    this.release();
    for (const res of this.#hanging) res.destroy();
    this.#server?.closeAllConnections();
    if (this.#server?.listening) {
      this.#server.close();
      await once(this.#server, 'close');
    }
  }

  /** Waits until `count` requests matched, or fails after `timeoutMs`. */
  async waitFor(
    count: number,
    match: (request: RecordedRequest) => boolean = () => true,
    timeoutMs = 5_000,
  ): Promise<RecordedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.requests.filter(match);
      if (found.length >= count) return found;
      if (Date.now() > deadline) {
        throw new Error(
          `expected ${count} requests, got ${found.length}: ${JSON.stringify(this.requests.map((r) => `${r.method} ${r.path}`))}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: bodyOf(text, req.headers['content-type']),
      raw: text,
      at: Date.now(),
    };
    this.requests.push(recorded);
    if (this.#held) await this.#held;
    const reply = this.#queue.shift() ?? this.#script(recorded) ?? this.#fallback;
    if ('hang' in reply) {
      this.#hanging.push(res);
      return;
    }
    if ('drop' in reply) {
      res.socket?.destroy();
      return;
    }
    if ('drip' in reply) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
      this.#hanging.push(res);
      return;
    }
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    recorded.replied = reply.status;
    const body = reply.text ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
    const type = reply.text === undefined ? 'application/json' : 'text/plain';
    res.writeHead(reply.status, {
      ...(body ? { 'content-type': type } : {}),
      ...reply.headers,
    });
    res.end(body);
  }
}

/** A request's body: a form's fields (as OAuth token endpoints take them), else JSON. */
function bodyOf(text: string, type: string | undefined): unknown {
  if (text === '') return undefined;
  if (type?.startsWith('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  return JSON.parse(text);
}

/** Starts `fake`, runs `use` with it, and stops it whatever happens. */
export async function serving<T>(
  fake: FakeService,
  use: (fake: FakeService) => Promise<T>,
): Promise<T> {
  await fake.start();
  try {
    return await use(fake);
  } finally {
    await fake.stop();
  }
}
