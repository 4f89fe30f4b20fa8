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
  return textFits(JSON.stringify(value) ?? '', limit);
}

/** Whether a text is at most `limit` bytes of UTF-8 (`jsonFits` of a serialisation at hand). */
export const textFits = (text: string, limit: number): boolean =>
  text.length * 3 <= limit || utf8Length(text) <= limit;

/**
 * Whether a JSON value nests at most `limit` levels (an object or array is one level more than
 * its parent; a scalar adds none). Iterative, so no nesting can overflow the stack, and it stops
 * at the first value too deep.
 */
export function jsonDepthWithin(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return false;
    for (const child of Object.values(item)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return true;
}
