import * as z from 'zod/mini';
import { color, jsonObject, requiredText, text } from './fields.js';
import { Limits } from './limits.js';
import { Instant } from './stats-queries.js';

/**
 * The records' export format (docs/export.md): NDJSON, a header line naming the format and its
 * version, then one line per record in stored order. POST /stats/import-records takes it back.
 */
export const EXPORT_FORMAT = 'ci-stats-records';
export const EXPORT_VERSION = 1;

/**
 * `records`: events and metrics of the project in one stream, merged in time order (events first
 * at equal times): what moves a project whole, since a server stores records in time order.
 * `tests`: every stored test result, a line each; it is out only (test results come in through
 * POST /stats/ingest-tests, and the import refuses it).
 */
export const ExportKind = z.enum(['events', 'metrics', 'records', 'tests']);
export type ExportKind = z.infer<typeof ExportKind>;
/** What POST /stats/import-records takes back. */
export type ImportKind = Exclude<ExportKind, 'tests'>;

/** GET /stats/export: what to take out; `after` resumes past the record with that id. */
export const ExportQuery = z.strictObject({
  projectId: requiredText(Limits.projectIdLength),
  kind: ExportKind,
  format: z._default(z.enum(['ndjson', 'csv']), 'ndjson'),
  from: z.optional(Instant),
  to: z.optional(Instant),
  after: z.optional(requiredText(64)),
});
export type ExportQuery = z.infer<typeof ExportQuery>;

/** The first line of an NDJSON export (and of an import). */
export const ExportHeader = z.strictObject({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  kind: ExportKind,
});
export type ExportHeader = z.infer<typeof ExportHeader>;

const recordId = requiredText(64);
const createdAt = z.pipe(
  z.string().check(z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)),
  z.transform((at) => Date.parse(at)),
);

/** An event line: what E7 stored, with its id and time (`created_at`, UTC, milliseconds). */
export const EventLine = z.strictObject({
  id: recordId,
  created_at: createdAt,
  eventType: requiredText(Limits.eventTypeLength),
  description: z.nullable(text(Limits.descriptionLength)),
  payload: z.nullable(jsonObject),
  color: z.nullable(color),
});
export type EventLine = z.infer<typeof EventLine>;

/** A metric line: what E8 stored, with its id and time. */
export const MetricLine = z.strictObject({
  id: recordId,
  created_at: createdAt,
  payload: jsonObject,
});
export type MetricLine = z.infer<typeof MetricLine>;

/** POST /stats/import-records?projectId=: the project the records go into (owner keys). */
export const ImportQuery = z.strictObject({
  projectId: requiredText(Limits.projectIdLength),
});

/** 200 body of import-records: the lines stored, and those the project stored already. */
export interface ImportAnswer {
  projectId: string;
  kind: ImportKind;
  imported: number;
  /** Records skipped: the project already stores a record with that id at about that time. */
  skipped: number;
}

/**
 * A `tests` line's keys, in their order: the line's id (`<run>:<test>`, where an export resumes),
 * the run (its id, time and identity as POST /stats/ingest-tests named it), the test (its id and
 * names), then its outcome in that run.
 */
export const TEST_LINE_KEYS = [
  'id',
  'created_at',
  'run',
  'buildId',
  'attempt',
  'commit',
  'branch',
  'pullRequest',
  'eventId',
  'test',
  'suite',
  'classname',
  'name',
  'file',
  'line',
  'status',
  'duration_ms',
  'attempts',
  'message',
] as const;

/** The CSV export's columns, per kind (payload as its JSON text). */
export const CSV_COLUMNS: Record<ExportKind, readonly string[]> = {
  events: ['id', 'created_at', 'eventType', 'description', 'color', 'payload'],
  metrics: ['id', 'created_at', 'payload'],
  records: ['kind', 'id', 'created_at', 'eventType', 'description', 'color', 'payload'],
  tests: TEST_LINE_KEYS,
};
