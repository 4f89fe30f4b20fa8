import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Whether an address is on the public internet: ipaddr.js names every special range (loopback,
 * private, link-local, unique-local, carrier-grade NAT, multicast, reserved, documentation…)
 * and calls only the rest `unicast`. IPv4-mapped IPv6 addresses are judged as the IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** A host given as an address (no lookup happens for it) must be public, unless allow-listed. */
export function literalAddressRefused(url: URL, allowedHosts: readonly string[]): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0) return false;
  if (allowedHosts.includes(url.host.toLowerCase()) || allowedHosts.includes(host)) return false;
  return !isPublicAddress(host);
}
