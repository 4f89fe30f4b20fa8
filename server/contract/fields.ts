import * as z from 'zod/mini';
import { isJsonObject, jsonByteLength } from './json.js';
import { Limits } from './limits.js';

/** Building blocks shared by several request schemas. */

export const text = (max: number) => z.string().check(z.maxLength(max));
export const requiredText = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));

/** An RGB colour as one integer, 0 (black) to 16777215 (white). */
export const color = z.int().check(z.gte(0), z.lte(Limits.maxColor));

/** A JSON object (not an array or null) whose serialisation fits the payload limit. */
export const jsonObject = z.custom<Record<string, unknown>>(
  (value) => isJsonObject(value) && jsonByteLength(value) <= Limits.payloadBytes,
);

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

export const httpUrl = z.string().check(z.refine(isHttpUrl));
