import { type LookupAddress, lookup } from 'node:dns';
import { isPublicAddress } from '../domain/channels/public-address.js';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for the connections to generic webhooks: the name is resolved once, and the
 * connection is made to the address resolved, only when every address is public. So a name
 * that resolved to a public address when the channel was made and to 127.0.0.1 now (DNS
 * rebinding) is refused at connection time. Hosts the operator allow-listed are not judged.
 */
export function publicOnlyLookup(allowedHosts: readonly string[]) {
  // Only names are looked up; an entry `name:port` allows the name (the channel's URL was held
  // to that port when it was made, and delivery connects to the URL's own port).
  const allowedNames = new Set(allowedHosts.map((entry) => entry.replace(/^([^:]+):\d+$/, '$1')));
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ): void => {
    lookup(hostname, { ...options, all: true } as { all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find((entry) => !isPublicAddress(entry.address));
      if (refused && !allowedNames.has(hostname.toLowerCase())) {
        const denied = new Error(
          `${hostname} resolves to a non-public address (${refused.address}): refused`,
        ) as NodeJS.ErrnoException;
        denied.code = 'EPUBLICONLY';
        return callback(denied, []);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first)
        return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
