import type { Exchange, TransportResponse } from './client.js';

/**
 * The exchange's whole answer within `ms`, or the error `late` makes at the deadline. Either way
 * the exchange is torn down after: a request given up may otherwise hold a socket open and keep
 * the step's process alive. The stats client and the GitLab note both call through this.
 */
export async function answerWithin(
  exchange: Exchange,
  ms: number,
  late: () => Error,
): Promise<TransportResponse> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  try {
    return await Promise.race([exchange.response, deadline]);
  } finally {
    clearTimeout(timer);
    exchange.abandon();
  }
}
