import { isJsonObject, jsonDepthWithin, textFits } from './json.js';
import { Limits } from './limits.js';
import { jsonTextMayHoldNul, NUL_PROBLEM, nulPath } from './nul.js';

/** A payload's rules without zod: the schema (`fields.ts`) and the quick check both judge by it. */

export const PayloadProblem = {
  notObject: 'must be a JSON object',
  tooDeep: `must nest at most ${Limits.payloadDepth} levels`,
  tooLarge: `must be at most ${Limits.payloadBytes} bytes of JSON`,
} as const;

/**
 * The serialisation the last payload's check made, and that payload: the service stores the text
 * the check made (a second `JSON.stringify` of every ingested payload cost about a microsecond per
 * request), asked by identity. One slot, not a map by payload: a request's check and its store
 * run in the same turn of the event loop when its project is known (else the text is made
 * again), and a WeakMap's entry cost more than the serialisation it saved (its ephemeron table,
 * written and swept by every scavenge: about 1.6 µs an E8 under load, BENCHMARKS.md, issue 31).
 * A payload checked earlier, or never, is serialised again.
 */
let checkedPayload: object | undefined;
let checkedJson = '';

/** A payload's JSON text: the one its check made when it was the last one checked, else made now. */
export const payloadJson = (payload: Record<string, unknown>): string =>
  payload === checkedPayload ? checkedJson : JSON.stringify(payload);

/**
 * What is wrong with an object's serialisation (too large, or a NUL in a string or key, named by
 * its path), or undefined: then its text is kept for `payloadJson`. Called on an object whose
 * depth was judged first (without recursion), so no payload nested deeper than `JSON.stringify`
 * can go reaches it; the size and the NUL are judged on one serialisation.
 */
export function payloadTextProblem(
  value: Record<string, unknown>,
): { message: string; path?: (string | number)[] } | undefined {
  // Passed just now (the quick check, then the schema for a body the quick check refused).
  if (value === checkedPayload) return undefined;
  const json = JSON.stringify(value) ?? '';
  if (!textFits(json, Limits.payloadBytes)) return { message: PayloadProblem.tooLarge };
  const path = jsonTextMayHoldNul(json) ? nulPath(value) : undefined;
  if (path) return { message: NUL_PROBLEM, path };
  checkedPayload = value;
  checkedJson = json;
  return undefined;
}

/** Whether a value is a payload the schema accepts (its text then kept for `payloadJson`). */
export const isPayload = (value: unknown): boolean =>
  isJsonObject(value) &&
  jsonDepthWithin(value, Limits.payloadDepth) &&
  payloadTextProblem(value) === undefined;
