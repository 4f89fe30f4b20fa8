import { decodeKeyCursor } from '../../../../contract/cursor.js';
import { Limits } from '../../../../contract/limits.js';
import {
  customRange,
  DEFAULT_PRESET,
  hourlyRange,
  presetRange,
  RANGE_PRESETS,
  type RangePreset,
} from '../../../domain/view-ranges.js';
import { MAX_CHARTS, type ViewQuery } from '../../../services/project-view-service.js';

const MAX_BRANCH_LENGTH = 200;
/** A workflow or CI job's name, as long as a branch's at most. */
const MAX_WORKFLOW_LENGTH = 200;
const MAX_EVENT_TYPE_LENGTH = Limits.eventTypeLength;
const MAX_CURSOR_LENGTH = 64;

const MAX_KEY_CURSOR_LENGTH = 1400;
const MAX_KEY_LENGTH = 200;

const one = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The statistics page's query: `range` (24h, 7d, 30d, 90d or custom with `from`/`to` days),
 * `branch`, the event `type` (the builds and the timeline), the `workflow` or CI job (the
 * timeline), the timeline's `before`, the key list's page `keys` and the charts asked for, `chart`
 * (repeatable, at most MAX_CHARTS). Undefined when it makes no sense (the page answers 400).
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
  const eventType = one(q.type) || undefined;
  const workflow = one(q.workflow) || undefined;
  if (!range) return undefined;
  if (workflow !== undefined && workflow.length > MAX_WORKFLOW_LENGTH) return undefined;
  if (eventType !== undefined && eventType.length > MAX_EVENT_TYPE_LENGTH) return undefined;
  if (branch !== undefined && branch.length > MAX_BRANCH_LENGTH) return undefined;
  if (before !== undefined && before.length > MAX_CURSOR_LENGTH) return undefined;
  const keys = one(q.keys) || undefined;
  if (keys !== undefined && (keys.length > MAX_KEY_CURSOR_LENGTH || !decodeKeyCursor(keys))) {
    return undefined;
  }
  const charts = (Array.isArray(q.chart) ? q.chart : q.chart === undefined ? [] : [q.chart]).filter(
    (key): key is string => typeof key === 'string' && key !== '',
  );
  if (charts.length > MAX_CHARTS || charts.some((key) => key.length > MAX_KEY_LENGTH)) {
    return undefined;
  }
  // One workflow's figures are read from hour cells: its buckets are whole hours.
  const read = workflow === undefined ? range : hourlyRange(range);
  return { range: read, branch, eventType, workflow, before, keys, charts };
}
