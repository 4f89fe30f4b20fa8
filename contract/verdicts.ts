import * as z from 'zod/mini';
import { SpecError } from './error-texts.js';
import { type ErrorTextPicker, pickErrorText, requiredText } from './fields.js';
import { Limits } from './limits.js';
import { Instant, rangeOrdered } from './stats-queries.js';

/**
 * Verdicts on series (issue 23): units and directions, thresholds, the project's default branch,
 * the comparison of a record with its baseline, alerts and change points. Kept apart from
 * paths.ts so that the reporters' bundles do not carry what only the server and its clients use.
 */
export const VerdictPaths = {
  updateSeries: '/stats/update-series',
  updateProject: '/stats/update-project',
  getProjectSettings: '/stats/get-project-settings',
  createThreshold: '/stats/create-threshold',
  getThresholds: '/stats/get-thresholds',
  updateThreshold: '/stats/update-threshold',
  deleteThreshold: '/stats/delete-threshold',
  compare: '/stats/compare',
  getAlerts: '/stats/get-alerts',
  dismissAlert: '/stats/dismiss-alert',
  reactivateAlert: '/stats/reactivate-alert',
  getChangePoints: '/stats/get-change-points',
  reevaluate: '/stats/reevaluate',
} as const;

/** The texts of the verdict endpoints' own errors. */
export const VerdictText = {
  thresholdNotFound: 'Threshold not found.',
  alertNotFound: 'Alert not found.',
  recordNotFound: 'Metric record not found.',
  chatWebhook: 'chat_webhook must be a Discord webhook URL.',
} as const;

/** The longest unit text ("ns/op", "bytes"...). */
export const UNIT_LENGTH = 32;
/** Series keys and branch names are at most this long (as the statistics keep them). */
export const NAME_LENGTH = 200;

export const DIRECTIONS = ['lower', 'higher'] as const;
export type Direction = (typeof DIRECTIONS)[number] | null;

/** Every field text the endpoints below may give (for the API reference's checks). */
export const FIELD_TEXTS = new Set<string>();

/** A field's 400 text: `<field> is invalid.` (the route's schema names the field at fault). */
export const fieldText = (field: string) => `${field} is invalid.`;

/**
 * The 400 text of a request that failed its schema: the project id first (as every read-back
 * endpoint), then the first field at fault, named.
 */
export function namingErrorText(fields: readonly string[]): ErrorTextPicker {
  const texts = fields.map(fieldText);
  for (const text of texts) FIELD_TEXTS.add(text);
  return pickErrorText([SpecError.projectIdRequired, ...texts, SpecError.invalidBody], (paths) => {
    const first = paths.map((path) => String(path[0] ?? ''));
    if (fields.includes('projectId') && first.includes('projectId')) {
      return SpecError.projectIdRequired;
    }
    const field = fields.find((name) => first.includes(name));
    return field === undefined ? SpecError.invalidBody : fieldText(field);
  });
}

const projectId = requiredText(Limits.projectIdLength);
const name = requiredText(NAME_LENGTH);
const id = requiredText(64);
const direction = z.nullable(z.enum(DIRECTIONS));

/** POST /stats/update-series: the owner sets (or overrides) a key's unit and direction. */
export const UpdateSeriesRequest = z.strictObject({
  projectId,
  key: name,
  unit: z.optional(z.nullable(z.string().check(z.maxLength(UNIT_LENGTH)))),
  direction: z.optional(direction),
});
export type UpdateSeriesRequest = z.infer<typeof UpdateSeriesRequest>;
export const updateSeriesErrorText = namingErrorText(['projectId', 'key', 'unit', 'direction']);

export interface SeriesSettings {
  key: string;
  unit: string | null;
  direction: Direction;
}

/** POST /stats/update-project: the project's settings. */
export const UpdateProjectRequest = z.strictObject({
  projectId,
  default_branch: z.optional(z.nullable(name)),
  /** false: keys without a threshold of their own are not judged (the default is removed). */
  default_threshold: z.optional(z.boolean()),
  /** A Discord webhook URL for the alerts of the default branch; null removes it. */
  chat_webhook: z.optional(z.nullable(z.string().check(z.maxLength(Limits.webhookUrlLength)))),
});
export type UpdateProjectRequest = z.infer<typeof UpdateProjectRequest>;
export const updateProjectErrorText = namingErrorText([
  'projectId',
  'default_branch',
  'default_threshold',
  'chat_webhook',
]);

/** A project's verdict settings as the API shows them (never the webhook itself). */
export interface ProjectSettings {
  projectId: string;
  /** The default branch in force: the one set, else main, or master (see docs/verdicts.md). */
  default_branch: string;
  /** Whether the default branch was set by the owner (false: chosen as described). */
  default_branch_set: boolean;
  default_threshold: boolean;
  chat_webhook: boolean;
  /** Re-evaluations asked for (POST /stats/reevaluate) and not finished yet. */
  reevaluations_queued: number;
}

const count = z.number();
const boundary = z.optional(z.nullable(z.number()));

/** The model's fields: their types here, their rules in validateModel (server). */
const thresholdFields = {
  key: name,
  branch: name,
  test: z.string().check(z.maxLength(32)),
  lower_boundary: boundary,
  upper_boundary: boundary,
  min_sample_size: z.optional(z.nullable(count)),
  max_sample_size: z.optional(z.nullable(count)),
  window_seconds: z.optional(z.nullable(count)),
};

const THRESHOLD_FIELDS = [
  'key',
  'branch',
  'test',
  'lower_boundary',
  'upper_boundary',
  'min_sample_size',
  'max_sample_size',
  'window_seconds',
] as const;

export const CreateThresholdRequest = z.strictObject({ projectId, ...thresholdFields });
export type CreateThresholdRequest = z.infer<typeof CreateThresholdRequest>;
export const thresholdErrorText = namingErrorText(['projectId', 'id', ...THRESHOLD_FIELDS]);

export const UpdateThresholdRequest = z.strictObject({
  id,
  key: z.optional(thresholdFields.key),
  branch: z.optional(thresholdFields.branch),
  test: z.optional(thresholdFields.test),
  lower_boundary: thresholdFields.lower_boundary,
  upper_boundary: thresholdFields.upper_boundary,
  min_sample_size: thresholdFields.min_sample_size,
  max_sample_size: thresholdFields.max_sample_size,
  window_seconds: thresholdFields.window_seconds,
});
export type UpdateThresholdRequest = z.infer<typeof UpdateThresholdRequest>;

export const IdRequest = z.strictObject({ id });
export type IdRequest = z.infer<typeof IdRequest>;
export const idErrorText = namingErrorText(['id']);

export interface Threshold {
  id: string;
  projectId: string;
  key: string;
  branch: string;
  test: string;
  lower_boundary: number | null;
  upper_boundary: number | null;
  min_sample_size: number | null;
  max_sample_size: number | null;
  window_seconds: number | null;
  created_at: string;
}

/** GET /stats/compare: one record (by id), or the latest metric record of a commit. */
export const CompareQuery = z
  .object({
    projectId,
    record: z.optional(id),
    commit: z.optional(requiredText(NAME_LENGTH)),
  })
  .check(
    z.refine((query) => (query.record === undefined) !== (query.commit === undefined), {
      path: ['record'],
      message: 'give record or commit',
    }),
  );
export type CompareQuery = z.infer<typeof CompareQuery>;
export const compareErrorText = namingErrorText(['projectId', 'record', 'commit']);

export type VerdictName = 'regression' | 'improvement' | 'ok' | 'no-baseline' | 'no-direction';

export interface ComparedKey {
  key: string;
  unit: string | null;
  direction: Direction;
  value: number;
  baseline: number | null;
  lower_limit: number | null;
  upper_limit: number | null;
  /** value / baseline − 1; null without a baseline (or a baseline of 0). */
  change: number | null;
  test: string | null;
  sample_size: number | null;
  verdict: VerdictName;
  base: { branch: string | null; commit: string | null };
}

export interface Alert {
  id: string;
  key: string;
  branch: string | null;
  record_id: string;
  commit: string | null;
  value: number;
  baseline: number | null;
  limit: number;
  side: 'lower' | 'upper';
  test: string;
  created_at: string;
  status: 'active' | 'dismissed';
}

export interface Comparison {
  record: { id: string; branch: string | null; commit: string | null };
  keys: ComparedKey[];
  alerts: Alert[];
}

const PageSize = z.pipe(
  z.string().check(
    z.regex(/^\d{1,3}$/),
    z.refine((text) => Number(text) >= 1 && Number(text) <= Limits.pageSizeMax, {
      message: `must be 1 to ${Limits.pageSizeMax}`,
    }),
  ),
  z.transform(Number),
);

/** GET /stats/get-alerts: paged like get-events (newest first, `cursor` = the last nextCursor). */
export const AlertQuery = z.object({
  projectId,
  status: z._default(z.enum(['active', 'dismissed', 'all']), 'active'),
  limit: z._default(PageSize, Limits.pageSizeDefault),
  cursor: z.optional(z.string().check(z.maxLength(64))),
});
export type AlertQuery = z.infer<typeof AlertQuery>;
export const alertQueryErrorText = namingErrorText(['projectId', 'status', 'limit', 'cursor']);

export interface AlertPage {
  alerts: Alert[];
  nextCursor: string | null;
}

/** GET /stats/get-change-points: one key on the default branch, optionally a time range. */
export const ChangePointQuery = z.object({
  projectId,
  key: name,
  from: z.optional(Instant),
  to: z.optional(Instant),
});
export type ChangePointQuery = z.infer<typeof ChangePointQuery>;
export const changePointErrorText = namingErrorText(['projectId', 'key', 'from', 'to']);

export interface ChangePointEntry {
  record_id: string;
  commit: string | null;
  at: string;
  before_mean: number;
  after_mean: number;
  change: number | null;
  p_value: number;
}

/** The most records one re-evaluation request queues (the oldest of its range). */
export const REEVALUATE_MAX_RECORDS = 10_000;

/**
 * POST /stats/reevaluate: judge stored values again under the current settings. `key` is an exact
 * key or a glob (as a threshold's), `branch` the records' branch; `from` inclusive, `to`
 * exclusive (ISO instants of the records' storing).
 */
export const ReevaluateRequest = z
  .strictObject({
    projectId,
    key: z.optional(name),
    branch: z.optional(name),
    from: z.optional(Instant),
    to: z.optional(Instant),
  })
  .check(z.refine(rangeOrdered, { path: ['to'], message: 'to must be after from' }));
export type ReevaluateRequest = z.infer<typeof ReevaluateRequest>;
export const reevaluateErrorText = namingErrorText(['projectId', 'key', 'branch', 'from', 'to']);

/** What a re-evaluation request queued (202). */
export interface Reevaluation {
  /** null: nothing to re-judge, nothing queued. */
  id: string | null;
  projectId: string;
  key: string | null;
  branch: string | null;
  from: string | null;
  to: string | null;
  /** Records queued: at most REEVALUATE_MAX_RECORDS, the oldest of the range. */
  records: number;
  /**
   * The range holds more records than were queued: when the first one left out was stored (send
   * again with this as `from`); null when all were queued.
   */
  next_from: string | null;
}
