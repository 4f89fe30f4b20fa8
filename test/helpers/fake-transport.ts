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

  post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Exchange {
    return this.request('POST', url, body, headers, timeoutMs);
  }

  request(
    method: string,
    url: string,
    body: string | undefined,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Exchange {
    this.sent.push({
      method,
      url,
      body: body === undefined ? undefined : JSON.parse(body),
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
