import { Limits } from '../contract/limits.js';

/**
 * A colour as the API wants it, an integer 0-16777215, from what people write in YAML: `16711680`,
 * `#ff0000` or `0xff0000` (case-insensitive). Undefined for an empty string; null for nonsense.
 */
export function parseColor(text: string): number | undefined | null {
  const value = text.trim();
  if (value === '') return undefined;
  const hex = /^(?:#|0x)([0-9a-f]{6})$/i.exec(value);
  const number = hex
    ? Number.parseInt(hex[1] as string, 16)
    : /^\d{1,8}$/.test(value)
      ? Number(value)
      : Number.NaN;
  return Number.isInteger(number) && number >= 0 && number <= Limits.maxColor ? number : null;
}

/** GitHub's own colours for the outcome of a job. */
export const STATUS_COLORS = {
  success: 0x2ea043,
  failure: 0xcf222e,
  cancelled: 0x6e7781,
} as const;
