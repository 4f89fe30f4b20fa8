import * as z from 'zod/mini';
import {
  decodeCursor,
  decodeKeyCursor,
  decodeRecordCursor,
  type RecordPosition,
} from './cursor.js';
import { SpecError } from './error-texts.js';
import { concerns, pickErrorText, requiredText } from './fields.js';
import { Limits } from './limits.js';
import { plainString } from './text-rule.js';

/** An ISO 8601 instant with a time zone (`2026-11-24T10:00:00Z`, `…+01:00`), as epoch ms. */
export const Instant = z.pipe(
  z.string().check(
    z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d{1,9})?)?(?:Z|[+-]\d\d:\d\d)$/),
    z.refine((text) => !Number.isNaN(Date.parse(text)), { message: 'must be a valid date' }),
  ),
  z.transform((text) => Date.parse(text)),
);

const name = requiredText(200);

/** `limit`: 1-200, written as plain digits. */
export const PageSize = z.pipe(
  z.string().check(
    z.regex(/^\d{1,3}$/),
    z.refine((text) => Number(text) >= 1 && Number(text) <= Limits.pageSizeMax, {
      message: `must be 1 to ${Limits.pageSizeMax}`,
    }),
  ),
  z.transform(Number),
);

/** A page cursor: the opaque `nextCursor` of the previous page, as what `decode` reads in it. */
const pageCursor = <T>(decode: (cursor: string) => T | undefined, none: T) =>
  z.pipe(
    plainString(),
    z.transform((cursor, ctx) => {
      const decoded = decode(cursor);
      if (decoded === undefined)
        ctx.issues.push({
          code: 'custom',
          input: cursor,
          message: 'must be the nextCursor of a previous page',
        });
      return decoded ?? none;
    }),
  );

/** `cursor`: the position (a sequence number or an offset) the previous page ended at. */
export const Cursor = pageCursor(decodeCursor, 0);

/** The cursor of the record lists: the time and `seq` of the last record of the page before. */
export const RecordCursor = pageCursor<RecordPosition>(decodeRecordCursor, { at: 0, seq: 0 });

/** A range `from` (inclusive) to `to` (exclusive) must not be empty. */
export const rangeOrdered = (query: { from?: number | undefined; to?: number | undefined }) =>
  query.from === undefined || query.to === undefined || query.from < query.to;

/**
 * GET /stats/get-events and /stats/get-metrics: the project, paging, and filters combined with
 * AND (`eventType` and `status` for events only; unknown parameters are ignored).
 */
export const RecordQuery = z
  .object({
    projectId: requiredText(Limits.projectIdLength),
    limit: z._default(PageSize, Limits.pageSizeDefault),
    cursor: z.optional(RecordCursor),
    eventType: z.optional(requiredText(Limits.eventTypeLength)),
    status: z.optional(name),
    branch: z.optional(name),
    from: z.optional(Instant),
    to: z.optional(Instant),
  })
  .check(z.refine(rangeOrdered, { path: ['to'], message: 'to must be after from' }));
export type RecordQuery = z.infer<typeof RecordQuery>;

/**
 * Every read-back endpoint answers a bad query alike: a missing or invalid `projectId` with E8's
 * `Project ID is required.`, judged first; any other bad parameter with `Invalid request body.`.
 */
export const readBackErrorText = pickErrorText(
  [SpecError.projectIdRequired, SpecError.invalidBody],
  (paths) => (concerns(paths, 'projectId') ? SpecError.projectIdRequired : SpecError.invalidBody),
);

export const ProjectQuery = z.object({ projectId: requiredText(Limits.projectIdLength) });

/** `limit` of the key list: 1-1000, written as plain digits. */
const KeysPageSize = z.pipe(
  z.string().check(
    z.regex(/^\d{1,4}$/),
    z.refine((text) => Number(text) >= 1 && Number(text) <= Limits.keysPageMax, {
      message: `must be 1 to ${Limits.keysPageMax}`,
    }),
  ),
  z.transform(Number),
);

/** `cursor` of the key list: the `nextCursor` of the page before, as the last key it held. */
const KeyCursor = z.pipe(
  plainString(),
  z.transform((cursor, ctx) => {
    const key = decodeKeyCursor(cursor);
    if (key === undefined)
      ctx.issues.push({
        code: 'custom',
        input: cursor,
        message: 'must be the nextCursor of a previous page',
      });
    return key ?? '';
  }),
);

/**
 * GET /stats/get-metric-keys: a page of the project's series keys in key order (UTF-8 byte
 * order), `limit` of them (default 200, at most 1000), after the page `cursor` ended.
 */
export const MetricKeysQuery = z.object({
  projectId: requiredText(Limits.projectIdLength),
  limit: z._default(KeysPageSize, Limits.keysPageDefault),
  cursor: z.optional(KeyCursor),
});
export type MetricKeysQuery = z.infer<typeof MetricKeysQuery>;

/** 1-1000 buckets, default 100. */
const BucketCount = z.pipe(
  z.string().check(
    z.regex(/^\d{1,4}$/),
    z.refine((text) => Number(text) >= 1 && Number(text) <= Limits.bucketsMax, {
      message: `must be 1 to ${Limits.bucketsMax}`,
    }),
  ),
  z.transform(Number),
);

const rangeFields = {
  projectId: requiredText(Limits.projectIdLength),
  from: z.optional(Instant),
  to: z.optional(Instant),
  buckets: z._default(BucketCount, Limits.bucketsDefault),
  branch: z.optional(name),
};

/** GET /stats/get-metric-series: `from`/`to` default to the last 30 days. */
export const SeriesQuery = z
  .object({ ...rangeFields, key: requiredText(200) })
  .check(z.refine(rangeOrdered, { path: ['to'], message: 'to must be after from' }));
export type SeriesQuery = z.infer<typeof SeriesQuery>;

/** GET /stats/get-build-summary: the same range rules, optionally one event type. */
export const BuildSummaryQuery = z
  .object({ ...rangeFields, eventType: z.optional(requiredText(Limits.eventTypeLength)) })
  .check(z.refine(rangeOrdered, { path: ['to'], message: 'to must be after from' }));
export type BuildSummaryQuery = z.infer<typeof BuildSummaryQuery>;

/** One series key: how many records have it, its last value and when. */
export interface MetricKeyInfo {
  key: string;
  count: number;
  last_value: number;
  last_at: string;
  /** The key's unit (`ms`, `bytes`...), declared by records or set by the owner; null: none. */
  unit: string | null;
  /** Whether lower or higher values are better; null: unknown (no regression verdicts). */
  direction: 'lower' | 'higher' | null;
}

/**
 * GET /stats/get-metric-keys 200 body: a page of series keys; `nextCursor` asks for the next page
 * (null: this was the last).
 */
export interface MetricKeys {
  keys: MetricKeyInfo[];
  nextCursor: string | null;
}

/** One non-empty bucket of a series. p50 and p95 are within 2 % of the exact values. */
export interface SeriesBucket {
  start: string;
  end: string;
  count: number;
  min: number;
  max: number;
  avg: number;
  p50: number;
  p95: number;
  last: number;
}

export interface MetricSeries {
  key: string;
  from: string;
  to: string;
  buckets: SeriesBucket[];
}

export interface BuildSummaryBucket {
  start: string;
  end: string;
  success: number;
  failure: number;
  cancelled: number;
  other: number;
}

/** success_rate = success / (success + failure) over the range; null when both are 0. */
export interface BuildSummary {
  from: string;
  to: string;
  buckets: BuildSummaryBucket[];
  success_rate: number | null;
}
