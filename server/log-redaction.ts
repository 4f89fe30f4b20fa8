/**
 * What no log line may hold, at any level: share tokens (in any URL: `/share/cis_share_…` is
 * written `/share/[redacted]`), API keys (`cis_…`, in a URL or a message), a Discord webhook's
 * token (`/api/webhooks/<id>/…`), the dashboard's cookies, and the configured secrets (the admin
 * token, the bootstrap key, SECRETS_KEY, the providers' keys), whatever their form. Applied to each
 * line as pino has serialised it, so a message, an error, a URL or a bound field is covered alike.
 */

const REDACTED = '[redacted]';

/** Secrets by their form, each with what replaces it. JSON-escaped text is what they are run on. */
const FORMS: [RegExp, string][] = [
  // Whatever follows /share/ is a token, a valid one or a guess at one.
  [/\/share\/[^/?#"\s\\]+/g, `/share/${REDACTED}`],
  [/\/api\/webhooks\/([^/?#"\s\\]+)\/[^/?#"\s\\]+/g, `/api/webhooks/$1/${REDACTED}`],
  // API keys and share tokens (cis_ and 43 base64url characters), and their longer prefixes.
  [/\bcis_[A-Za-z0-9_-]{6,}/g, REDACTED],
  [/((?:__Host-)?cistats_(?:pre)?session=)[^;"\s\\]+/g, `$1${REDACTED}`],
];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A function scrubbing one serialised log line of every secret above and of `literals`. */
export function logRedaction(literals: readonly (string | undefined)[]): (line: string) => string {
  // As they appear inside a JSON string.
  const known = literals
    .filter((text): text is string => text !== undefined && text.length >= 8)
    .map((text) => JSON.stringify(text).slice(1, -1));
  const literal =
    known.length === 0 ? undefined : new RegExp(known.map(escapeRegExp).join('|'), 'g');
  return (line) => {
    let safe = literal === undefined ? line : line.replace(literal, REDACTED);
    for (const [form, replacement] of FORMS) safe = safe.replace(form, replacement);
    return safe;
  };
}
