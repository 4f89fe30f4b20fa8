import { gunzipSync } from 'node:zlib';
import type { Exchange, Transport, TransportResponse } from '../../reporter/client.js';

export interface SentRequest {
  method: string;
  url: string;
  body: unknown;
  headers: Record<string, string>;
  timeoutMs: number;
}

/**
 * The reporter's way out, in process: records what the client sends and answers from a script
 * (an answer, a network error, or silence until the client gives up).
 */
export class FakeTransport implements Transport {
  readonly sent: SentRequest[] = [];
  abandoned = 0;
  #answers: (Partial<TransportResponse> | Error | 'silence')[] = [];

  answer(...answers: (Partial<TransportResponse> | Error | 'silence')[]): this {
    this.#answers.push(...answers);
    return this;
  }

  post(
    url: string,
    body: string | Uint8Array,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Exchange {
    return this.request('POST', url, body, headers, timeoutMs);
  }

  request(
    method: string,
    url: string,
    body: string | Uint8Array | undefined,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Exchange {
    // A compressed body (a batch of test cases) is recorded as what it decompresses to.
    const text =
      body === undefined || typeof body === 'string'
        ? body
        : headers['content-encoding'] === 'gzip'
          ? gunzipSync(body).toString('utf8')
          : Buffer.from(body).toString('utf8');
    this.sent.push({
      method,
      url,
      body: text === undefined ? undefined : JSON.parse(text),
      headers,
      timeoutMs,
    });
    const next = this.#answers.shift() ?? { status: 200, body: '{"message":"ok","id":"id-1"}' };
    const response =
      next === 'silence'
        ? new Promise<TransportResponse>(() => undefined)
        : next instanceof Error
          ? Promise.reject(next)
          : Promise.resolve({ status: 200, headers: {}, body: '', ...next });
    return { response, abandon: () => (this.abandoned += 1) };
  }
}
