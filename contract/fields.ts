import * as z from 'zod/mini';
import { isJsonObject, jsonDepthWithin } from './json.js';
import { Limits } from './limits.js';
import { PayloadProblem, payloadTextProblem } from './payload.js';
import { noNul } from './text-rule.js';

/** Building blocks shared by several request schemas. */

/** Every text refuses NUL (`text-rule.ts`), whatever else it checks. */
export const text = (max: number) => z.string().check(z.maxLength(max), noNul);
export const requiredText = (max: number) =>
  z.string().check(z.minLength(1), z.maxLength(max), noNul);
/** Trimmed first, then 1 to `max` characters. */
export const trimmedText = (max: number) =>
  z.string().check(z.trim(), z.minLength(1), z.maxLength(max), noNul);

/** An RGB colour as one integer, 0 (black) to 16777215 (white). */
export const color = z.int().check(z.gte(0), z.lte(Limits.maxColor));

/**
 * A JSON object (not an array or null) of at most `payloadDepth` levels whose serialisation fits
 * the payload limit and holds no NUL in any string or key (named by its path). The depth is judged
 * first (without recursion), so a payload nested deeper than `JSON.stringify` can go is refused
 * before anything serialises it; the size and the NUL are judged on one serialisation.
 */
export const jsonObject = z
  .custom<Record<string, unknown>>(isJsonObject, {
    message: PayloadProblem.notObject,
  })
  .check(
    z.refine((value) => jsonDepthWithin(value, Limits.payloadDepth), {
      message: PayloadProblem.tooDeep,
      abort: true,
    }),
    z.check<Record<string, unknown>>((ctx) => {
      const problem = payloadTextProblem(ctx.value);
      if (problem) ctx.issues.push({ code: 'custom', input: ctx.value, ...problem });
    }),
  )
  // What the OpenAPI document shows for it (a custom check has no JSON Schema of its own).
  .register(z.globalRegistry, {
    type: 'object',
    additionalProperties: true,
    description: `A JSON object: at most ${Limits.payloadDepth} levels deep and ${Limits.payloadBytes} bytes.`,
  });

/** An absolute http(s) URL with a host. `javascript:`, `data:` and relative URLs are refused. */
export function isHttpUrl(value: string): boolean {
  if (value.length > Limits.urlLength || value.trim() !== value) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const httpUrl = z.string().check(
  noNul,
  z.refine(isHttpUrl, {
    message: `must be an absolute http(s) URL of at most ${Limits.urlLength} characters`,
  }),
);

/** Where a request failed its schema: the path of each problem, in the order zod found them. */
export type IssuePaths = readonly (readonly PropertyKey[])[];

/** Chooses among `texts`, which the API reference lists as the endpoint's 400 texts. */
export type ErrorTextPicker = ((paths: IssuePaths, input: unknown) => string) & {
  readonly texts: readonly string[];
};

/** An ErrorTextPicker: the texts it may give, declared beside the rule that picks one. */
export const pickErrorText = (
  texts: readonly string[],
  pick: (paths: IssuePaths, input: unknown) => string,
): ErrorTextPicker => Object.assign(pick, { texts });

/**
 * Chooses the `error` text of a request that failed its schema. Most endpoints have one text for
 * every problem; some (E2, E5, E8, get-metrics) name the field at fault, in a fixed order.
 */
export type ErrorText = string | ErrorTextPicker;

/** Whether any problem lies at or under the top-level `field`. */
export const concerns = (paths: IssuePaths, field: string): boolean =>
  paths.some((path) => path[0] === field);
