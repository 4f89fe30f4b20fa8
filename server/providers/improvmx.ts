import { DeliveryError } from '../outbound/delivery-error.js';
import type { OutboundHttp } from '../outbound/outbound-http.js';
import type { ForwardingProvider } from './forwarding-provider.js';

export interface ImprovMxOptions {
  apiKey: string;
  domain: string;
  /** e.g. https://api.improvmx.com/v3 */
  apiUrl: string;
}

/**
 * ImprovMX API v3: HTTP Basic auth with user `api` and the key as password. Creating an alias
 * that exists answers 400, so an upsert falls back to updating it; removing an alias that is
 * already gone (404) counts as removed.
 */
export function improvMxForwarding(
  http: OutboundHttp,
  options: ImprovMxOptions,
): ForwardingProvider {
  const authorization = `Basic ${Buffer.from(`api:${options.apiKey}`).toString('base64')}`;
  const aliases = `${options.apiUrl}/domains/${encodeURIComponent(options.domain)}/aliases`;
  const call = (
    method: 'POST' | 'PUT' | 'DELETE',
    url: string,
    json?: unknown,
    accept: number[] = [],
  ) =>
    http.send(
      {
        method,
        url,
        json,
        headers: { authorization },
        secrets: [options.apiKey, authorization],
        service: 'ImprovMX',
      },
      accept,
    );

  return {
    name: 'improvmx',

    async upsertAlias(alias, forwardTo) {
      const created = await call('POST', aliases, { alias, forward: forwardTo }, [400]);
      if (created.status !== 400) return;
      // 400 on create means "exists" (or a bad request, which the update will reveal).
      const updated = await call(
        'PUT',
        `${aliases}/${encodeURIComponent(alias)}`,
        { forward: forwardTo },
        [404],
      );
      if (updated.status === 404) {
        throw new DeliveryError(
          'ImprovMX refused to create the alias (HTTP 400)',
          false,
          undefined,
          400,
        );
      }
    },

    async removeAlias(alias) {
      await call('DELETE', `${aliases}/${encodeURIComponent(alias)}`, undefined, [404]);
    },
  };
}
