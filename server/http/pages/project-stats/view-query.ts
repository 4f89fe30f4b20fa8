import {
  customRange,
  DEFAULT_PRESET,
  presetRange,
  RANGE_PRESETS,
  type RangePreset,
} from '../../../domain/view-ranges.js';
import type { ViewQuery } from '../../../services/project-view-service.js';

const MAX_BRANCH_LENGTH = 200;
const MAX_CURSOR_LENGTH = 64;

const one = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The statistics page's query: `range` (24h, 7d, 30d, 90d or custom with `from`/`to` days),
 * `branch` and the timeline's `before`. Undefined when it makes no sense (the page answers 400).
 */
export function viewQueryOf(query: unknown, now = Date.now()): ViewQuery | undefined {
  const q = (query ?? {}) as Record<string, unknown>;
  const preset = one(q.range) ?? DEFAULT_PRESET;
  const range =
    preset === 'custom'
      ? customRange(one(q.from) ?? '', one(q.to) ?? '')
      : preset in RANGE_PRESETS
        ? presetRange(preset as RangePreset, now)
        : undefined;
  const branch = one(q.branch) || undefined;
  const before = one(q.before) || undefined;
  if (!range) return undefined;
  if (branch !== undefined && branch.length > MAX_BRANCH_LENGTH) return undefined;
  if (before !== undefined && before.length > MAX_CURSOR_LENGTH) return undefined;
  return { range, branch, before };
}
