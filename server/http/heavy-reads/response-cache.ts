import { createHash } from 'node:crypto';

/** An answer as it is sent again: status, body, content type, and its ETag. */
export interface CachedAnswer {
  status: number;
  body: string;
  type: string;
  etag: string;
}

interface Entry {
  answer: CachedAnswer;
  at: number;
}

/** Answers kept at most (the least recently stored go first). */
const CAPACITY = 1000;

/**
 * Share pages and badges, each answer kept for `ttlMs` (a few seconds), and concurrent requests
 * for the same answer coalesced: the first computes it, the others wait for that computation. A
 * flood of identical requests then costs one computation per `ttlMs`, and what it shows is at most
 * `ttlMs` old. The ETag (a hash of the body) lets a client revalidate with If-None-Match (304).
 * Kept in this process's memory; bounded by CAPACITY.
 */
export class ResponseCache {
  private readonly answers = new Map<string, Entry>();
  private readonly computing = new Map<string, Promise<CachedAnswer>>();

  constructor(private readonly ttlMs: number) {}

  async get(
    key: string,
    compute: () => Promise<Omit<CachedAnswer, 'etag'>>,
  ): Promise<CachedAnswer> {
    const kept = this.answers.get(key);
    if (kept && Date.now() - kept.at < this.ttlMs) return kept.answer;
    const running = this.computing.get(key);
    if (running) return running;
    const computation = compute().then((answer) => {
      const full = { ...answer, etag: etagOf(answer.body) };
      // Only what every visitor would get is kept: a refusal or an error is computed again.
      if (this.ttlMs > 0 && answer.status === 200) this.keep(key, full);
      return full;
    });
    this.computing.set(key, computation);
    try {
      return await computation;
    } finally {
      this.computing.delete(key);
    }
  }

  private keep(key: string, answer: CachedAnswer): void {
    this.answers.delete(key);
    this.answers.set(key, { answer, at: Date.now() });
    if (this.answers.size > CAPACITY) {
      const oldest = this.answers.keys().next().value;
      if (oldest !== undefined) this.answers.delete(oldest);
    }
  }
}

/** A strong ETag: the body's SHA-256, base64url, cut to 128 bits. */
function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}
