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
 * The serialisation each payload's check made, by payload object: storing it again would cost a
 * second `JSON.stringify` of every ingested payload (about a microsecond per request). Weak, so a
 * payload and its text leave memory together.
 */
const checkedJson = new WeakMap<object, string>();

/** A payload's JSON text: the one its check made when it passed, else made now. */
export const payloadJson = (payload: Record<string, unknown>): string =>
  checkedJson.get(payload) ?? JSON.stringify(payload);

/**
 * What is wrong with an object's serialisation (too large, or a NUL in a string or key, named by
 * its path), or undefined: then its text is kept for `payloadJson`. Called on an object whose
 * depth was judged first (without recursion), so no payload nested deeper than `JSON.stringify`
 * can go reaches it; the size and the NUL are judged on one serialisation.
 */
export function payloadTextProblem(
  value: Record<string, unknown>,
): { message: string; path?: (string | number)[] } | undefined {
  // Passed already (the quick check, then the schema for a body the quick check refused).
  if (checkedJson.has(value)) return undefined;
  const json = JSON.stringify(value) ?? '';
  if (!textFits(json, Limits.payloadBytes)) return { message: PayloadProblem.tooLarge };
  const path = jsonTextMayHoldNul(json) ? nulPath(value) : undefined;
  if (path) return { message: NUL_PROBLEM, path };
  checkedJson.set(value, json);
  return undefined;
}

/** Whether a value is a payload the schema accepts (its text then kept for `payloadJson`). */
export const isPayload = (value: unknown): boolean =>
  isJsonObject(value) &&
  jsonDepthWithin(value, Limits.payloadDepth) &&
  payloadTextProblem(value) === undefined;
