import { secondsToMs } from '../../contract/retry.js';
import type { OutboundHttp, ResponseHeaders } from '../outbound/outbound-http.js';
import type { ContactsProvider } from './contacts-provider.js';

export interface BrevoOptions {
  apiKey: string;
  /** e.g. https://api.brevo.com/v3 */
  apiUrl: string;
  listId: number | undefined;
  /** Contact attribute that receives the alias address, when the Brevo account has one. */
  aliasAttribute: string | undefined;
}

/** Brevo's own way of asking to wait: `x-sib-ratelimit-reset`, in seconds. */
export function brevoRetryAfter(headers: ResponseHeaders): number | undefined {
  const reset = headers['x-sib-ratelimit-reset'];
  return secondsToMs(Array.isArray(reset) ? reset[0] : reset);
}

/**
 * Brevo API v3: `POST /contacts` with header `api-key` and `updateEnabled: true`, so the call
 * creates the contact (201) or updates an existing one (204).
 */
export function brevoContacts(http: OutboundHttp, options: BrevoOptions): ContactsProvider {
  return {
    name: 'brevo',

    async upsertContact({ email, alias }) {
      await http.send({
        method: 'POST',
        url: `${options.apiUrl}/contacts`,
        headers: { 'api-key': options.apiKey },
        json: {
          email,
          attributes: options.aliasAttribute ? { [options.aliasAttribute]: alias } : {},
          ...(options.listId === undefined ? {} : { listIds: [options.listId] }),
          updateEnabled: true,
        },
        secrets: [options.apiKey],
        service: 'Brevo',
        retryAfter: brevoRetryAfter,
      });
    },
  };
}
