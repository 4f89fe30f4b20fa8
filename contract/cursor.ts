/**
 * Page cursors of the read-back endpoints. Clients treat them as opaque; the server encodes the
 * last sequence number it returned, base64url without padding. Web-standard (btoa/atob), so a
 * browser page can read them too.
 */
const SEQUENCE = /^[1-9]\d{0,15}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/** Binary text (one byte a character) as base64url without padding. */
const toBase64Url = (binary: string) =>
  btoa(binary).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');

/** The binary text of a base64url cursor, or undefined when it is not base64url. */
function fromBase64Url(cursor: string): string | undefined {
  if (!BASE64URL.test(cursor)) return undefined;
  try {
    return atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return undefined;
  }
}

export function encodeCursor(seq: number): string {
  return toBase64Url(String(seq));
}

/** The sequence number of a cursor, or undefined when it is not one of ours. */
export function decodeCursor(cursor: string): number | undefined {
  const text = fromBase64Url(cursor);
  return text !== undefined && SEQUENCE.test(text) ? Number(text) : undefined;
}

/** A record's place in the newest-first lists: its time (epoch ms), then its `seq`. */
export interface RecordPosition {
  at: number;
  seq: number;
}

const POSITION = /^(0|[1-9]\d{0,15})\.([1-9]\d{0,15})$/;

/**
 * The cursor of GET /stats/get-events and /stats/get-metrics (and the project page's timeline):
 * the last record's time and `seq` (records are listed by time, and imported ones are older than
 * their `seq`), as `<at>.<seq>` in base64url without padding.
 */
export function encodeRecordCursor(position: RecordPosition): string {
  return toBase64Url(`${position.at}.${position.seq}`);
}

/** The position of a record cursor, or undefined when it is not one of ours. */
export function decodeRecordCursor(cursor: string): RecordPosition | undefined {
  const text = fromBase64Url(cursor);
  if (text === undefined) return undefined;
  const match = POSITION.exec(text);
  if (!match) return undefined;
  const at = Number(match[1]);
  const seq = Number(match[2]);
  return Number.isSafeInteger(at) && Number.isSafeInteger(seq) ? { at, seq } : undefined;
}

/**
 * The cursor of GET /stats/get-metric-keys: the last key of the page before, its UTF-8 bytes in
 * base64url without padding (keys are ordered by those bytes on both backends).
 */
export function encodeKeyCursor(key: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(key)) binary += String.fromCharCode(byte);
  return toBase64Url(binary);
}

/** The key a key cursor names, or undefined when it is not one of ours. */
export function decodeKeyCursor(cursor: string): string | undefined {
  const binary = cursor === '' ? undefined : fromBase64Url(cursor);
  if (binary === undefined) return undefined;
  try {
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const key = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return key === '' || key.includes('\u0000') ? undefined : key;
  } catch {
    return undefined;
  }
}
