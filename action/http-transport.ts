import { HttpClient } from '@actions/http-client';
import type { Transport } from '../reporter/client.js';

/**
 * The runner's way out: @actions/http-client honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY like the
 * rest of the Actions toolkit. Redirects are not followed, retries are the reporter's. Each
 * exchange gets a client of its own, whose agent `abandon` destroys with any socket still open.
 */
export const actionsHttpTransport: Transport = {
  post(url, body, headers, timeoutMs) {
    const http = new HttpClient(undefined, undefined, {
      socketTimeout: timeoutMs,
      allowRedirects: false,
      allowRetries: false,
      keepAlive: true,
    });
    const response = (async () => {
      const answer = await http.post(url, body, headers);
      return {
        status: answer.message.statusCode ?? 0,
        headers: answer.message.headers,
        body: await answer.readBody(),
      };
    })();
    return { response, abandon: () => http.dispose() };
  },
};
