import { Limits } from '../../contract/limits.js';

/** Names that would impersonate the service or a mail role account (RFC 2142 and friends). */
export const RESERVED_DISPLAY_NAMES: ReadonlySet<string> = new Set([
  'admin',
  'administrator',
  'postmaster',
  'hostmaster',
  'webmaster',
  'abuse',
  'root',
  'security',
  'support',
  'noreply',
  'no-reply',
  'mailer-daemon',
  'info',
  'sales',
  'marketing',
  'billing',
  'help',
  'staff',
  'system',
  'nobody',
  'www',
  'ftp',
  'usenet',
  'news',
  'uucp',
]);

/**
 * Normalises a requested display name into the local part of the alias: trim, lowercase, runs of
 * whitespace to one "-", drop everything outside [a-z0-9-], collapse "-" runs, strip edge "-".
 */
export function sanitizeDisplayName(raw: string): string {
  return raw
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '-')
    .replace(/[^a-z0-9-]/g, '')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
}

export type DisplayNameVerdict =
  | { ok: true; name: string }
  | { ok: false; reason: 'length' | 'reserved' };

export function judgeDisplayName(raw: string): DisplayNameVerdict {
  const name = sanitizeDisplayName(raw);
  if (name.length < Limits.displayNameMin || name.length > Limits.displayNameMax) {
    return { ok: false, reason: 'length' };
  }
  if (RESERVED_DISPLAY_NAMES.has(name)) return { ok: false, reason: 'reserved' };
  return { ok: true, name };
}
