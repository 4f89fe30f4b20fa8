/**
 * The one rule for every text the server accepts (API bodies and query parameters, the admin
 * routes, dashboard forms, page addresses) and for every string and key inside a JSON payload:
 * no NUL character (U+0000). PostgreSQL's `text` and `jsonb` cannot hold it while SQLite and JSON
 * can, so it is refused everywhere with 400 naming the field, and both backends answer alike.
 * Every other character, the other control characters included, is stored and given back as sent.
 *
 * No zod here: the reporters' ingest pre-check (ingest-check.ts) runs these at every step, and a
 * step loads zod only when a request needs its full schema; the zod checks are in text-rule.ts.
 */
export const NUL_PROBLEM = 'must not contain the NUL character (U+0000)';

export const holdsNul = (text: string): boolean => text.includes('\u0000');

/** The `error` of a refused field whose route names its field in its own words. */
export const nulText = (field: string): string => `${field} ${NUL_PROBLEM}.`;

/** Whether `field` of a request body is a text holding a NUL. */
export const fieldHoldsNul = (body: unknown, field: string): boolean => {
  const value = (body as Record<string, unknown> | null | undefined)?.[field];
  return typeof value === 'string' && holdsNul(value);
};

/**
 * Where the first NUL of a JSON value is: the path of the string holding it, or of the object key
 * holding it (`[]` for a string value itself); undefined when there is none. Iterative, so no
 * nesting can overflow the stack.
 */
export function nulPath(value: unknown): (string | number)[] | undefined {
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, path] = next;
    if (typeof item === 'string') {
      if (holdsNul(item)) return path;
    } else if (Array.isArray(item)) {
      item.forEach((child, index) => {
        stack.push([child, [...path, index]]);
      });
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        if (holdsNul(key)) return [...path, key];
        stack.push([child, [...path, key]]);
      }
    }
  }
  return undefined;
}

/**
 * Whether a JSON value's serialisation shows a NUL: `JSON.stringify` writes U+0000 as `\u0000`,
 * so one search of the text rules out the common case; a hit may be a literal backslash followed
 * by `u0000`, which `nulPath` then tells apart.
 */
export const jsonTextMayHoldNul = (json: string): boolean => json.includes('\\u0000');
