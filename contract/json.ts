/** A JSON object: not an array, not null. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** UTF-8 length of a string, counted without allocating (web-standard: no Buffer here). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    // A surrogate pair (4 bytes) is two code units of 2 bytes each in this count.
    bytes += code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 1 : 2;
  }
  return bytes;
}

/**
 * Whether a value's JSON fits in `limit` bytes. A UTF-16 code unit is at most 3 bytes of UTF-8,
 * so a short serialisation needs no counting: the common case on the ingest path.
 */
export function jsonFits(value: unknown, limit: number): boolean {
  const text = JSON.stringify(value) ?? '';
  return text.length * 3 <= limit || utf8Length(text) <= limit;
}
