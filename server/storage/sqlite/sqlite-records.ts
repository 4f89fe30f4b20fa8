import type { Statement } from 'better-sqlite3';
import type { RecordPosition } from '../../../contract/cursor.js';
import { workflowOf, workflowOfText } from '../../domain/record-facts.js';
import type { FreshMetrics } from '../fresh-metrics.js';
import {
  type EventPageRow,
  eventPage,
  type MetricPageRow,
  mergeInOrder,
  metricPage,
  NO_CURSOR,
} from '../record-pages.js';
import type { RecordFilter, RecordRepository } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { sqliteIdempotency } from './sqlite-idempotency.js';
import type { sqliteOutbox } from './sqlite-outbox.js';
import type { sqliteStatsIndex } from './sqlite-stats.js';
import type { RecordTable, SqliteTimeMarks } from './sqlite-time-marks.js';
import type { Sync } from './sync.js';

/** Each filter: its condition (`$` is the table's alias) and its parameters. */
const FILTERS = [
  ['eventType', '$event_type = ?'],
  ['status', '$status = ?'],
  ['branch', '$branch = ?'],
  ['from', '$created_at >= ?'],
  ['to', '$created_at < ?'],
] as const;

/**
 * A page query newest first by (time, seq) with the filters that are set, each combination
 * prepared once, as two streams merged (docs/decisions.md): the records stored in time order
 * (`imported = 0`), read on the (project, seq) index between the seqs the minute marks give for
 * the range and the cursor (no time index, which ingest would pay for), and the imported ones,
 * read by time on their partial index. `select` ends with `FROM`; `alias` prefixes the columns.
 */
function filteredPage(
  db: Db,
  marks: SqliteTimeMarks,
  table: RecordTable,
  [select, alias]: [string, string],
) {
  const prepared = new Map<
    string,
    { stored: Statement<unknown[]>; imported: Statement<unknown[]> }
  >();
  const column = (name: string) => `${alias}${name}`;
  return <Row>(filter: RecordFilter, projectId: string, before: RecordPosition, limit: number) => {
    const set = FILTERS.filter(([name]) => filter[name] !== undefined);
    const shape = set.map(([name]) => name).join();
    let statements = prepared.get(shape);
    if (!statements) {
      const where = set.map(([, condition]) => ` AND ${condition.replaceAll('$', alias)}`).join('');
      const before = `(${column('created_at')}, ${column('seq')}) < (?, ?)`;
      statements = {
        stored: db.prepare(
          `${select} WHERE ${column('project_id')} = ? AND ${column('seq')} >= ?
              AND ${column('seq')} < ? AND ${column('imported')} = 0 AND ${before}${where}
            ORDER BY ${column('seq')} DESC LIMIT ?`,
        ),
        imported: db.prepare(
          `${select} WHERE ${column('project_id')} = ? AND ${column('imported')} = 1
              AND ${before}${where}
            ORDER BY ${column('created_at')} DESC, ${column('seq')} DESC LIMIT ?`,
        ),
      };
      prepared.set(shape, statements);
    }
    // The seqs of stored-order records made in [from, min(to, before's time + 1)).
    const to = Math.min(filter.to ?? Number.MAX_SAFE_INTEGER, before.at + 1);
    const [lo, hi] =
      filter.from === undefined && to === Number.MAX_SAFE_INTEGER
        ? [0, Number.MAX_SAFE_INTEGER]
        : marks.seqRange(table, filter.from ?? 0, to);
    const values = set.map(([name]) => filter[name]);
    const stored = statements.stored.all(
      projectId,
      lo,
      hi,
      before.at,
      before.seq,
      ...values,
      limit,
    ) as (Row & { seq: number; createdAt: number })[];
    const imported = statements.imported.all(
      projectId,
      before.at,
      before.seq,
      ...values,
      limit,
    ) as (Row & { seq: number; createdAt: number })[];
    return mergeInOrder(stored, imported, limit);
  };
}

export const recordWrites = ['append', 'importBatch'] as const;

/** Events and metrics: append-only, read back newest first by project. */
export function sqliteRecords(
  db: Db,
  idempotency: ReturnType<typeof sqliteIdempotency>,
  outbox: ReturnType<typeof sqliteOutbox>['repository'],
  statsIndex: ReturnType<typeof sqliteStatsIndex>,
  marks: SqliteTimeMarks,
  fresh: FreshMetrics,
): Sync<RecordRepository> {
  // Positional parameters: binding by name cost a measurable share of an ingest.
  const insertEvent = db.prepare(
    `INSERT INTO events
       (id, project_id, event_type, description, payload, color, created_at, branch, status)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertMetric = db.prepare(
    'INSERT INTO metrics (id, project_id, payload, created_at, branch) VALUES (?, ?, ?, ?, ?)',
  );
  // Back-dated (POST /stats/import-records): the record's own time, no mark (docs/decisions.md).
  const importEvent = db.prepare(
    `INSERT INTO events
       (id, project_id, event_type, description, payload, color, created_at, branch, status, imported)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
  );
  const importMetric = db.prepare(
    `INSERT INTO metrics (id, project_id, payload, created_at, branch, imported)
     VALUES (?, ?, ?, ?, ?, 1)`,
  );
  // Ids stored in a time range [from, to]: the marks' seq range, then the imported rows.
  const idsIn = (table: RecordTable) =>
    db
      .prepare(
        `SELECT id FROM ${table} WHERE project_id = ? AND seq >= ? AND seq < ?
            AND created_at >= ? AND created_at <= ?
         UNION ALL
         SELECT id FROM ${table} WHERE project_id = ? AND imported = 1
            AND created_at >= ? AND created_at <= ?`,
      )
      .pluck();
  const ids = { events: idsIn('events'), metrics: idsIn('metrics') };
  const eventRows = filteredPage(db, marks, 'events', [
    `SELECT e.seq, e.id, e.project_id AS projectId, e.event_type AS eventType, e.description,
            e.payload, e.color, e.created_at AS createdAt,
            o.status AS notificationStatus, o.attempts AS notificationAttempts,
            o.last_error AS notificationError
       FROM events e LEFT JOIN outbox o ON o.event_id = e.id`,
    'e.',
  ]);
  const metricRows = filteredPage(db, marks, 'metrics', [
    `SELECT seq, id, project_id AS projectId, payload, created_at AS createdAt
       FROM metrics`,
    '',
  ]);

  return {
    // A write of the group commit: the key, the record and its job commit together.
    append(record, claim) {
      if (claim) {
        const earlier = idempotency.claim(claim);
        if (earlier) return { stored: false, earlier };
      }
      if (record.kind === 'metric') {
        const m = record.row;
        const createdAt = marks.stamp(m.createdAt);
        const { lastInsertRowid } = insertMetric.run(
          m.id,
          m.projectId,
          m.payload,
          createdAt,
          m.branch,
        );
        const seq = Number(lastInsertRowid);
        marks.stored('metrics', seq, createdAt);
        fresh.stored({
          seq,
          id: m.id,
          projectId: m.projectId,
          payload: m.payload,
          createdAt,
          branch: m.branch,
          parsed: record.parsed,
        });
        statsIndex.appended(seq, {
          projectId: m.projectId,
          branch: m.branch,
          t: createdAt,
          leaves: record.series,
          workflow: record.parsed ? workflowOf(record.parsed) : workflowOfText(m.payload),
        });
      } else {
        const e = record.row;
        const createdAt = marks.stamp(e.createdAt);
        const { lastInsertRowid } = insertEvent.run(
          e.id,
          e.projectId,
          e.eventType,
          e.description,
          e.payload,
          e.color,
          createdAt,
          e.branch,
          e.status,
        );
        const seq = Number(lastInsertRowid);
        marks.stored('events', seq, createdAt);
        statsIndex.appendedEvent(seq, {
          projectId: e.projectId,
          eventType: e.eventType,
          branch: e.branch,
          status: e.status,
          createdAt,
          workflow: workflowOfText(e.payload),
        });
        if (record.notification) outbox.enqueue(record.notification, e.id);
        for (const job of record.channelJobs ?? []) outbox.enqueue(job);
      }
      return { stored: true };
    },

    importBatch(records) {
      for (const record of records) {
        if (record.kind === 'metric') {
          const m = record.row;
          const { lastInsertRowid } = importMetric.run(
            m.id,
            m.projectId,
            m.payload,
            m.createdAt,
            m.branch,
          );
          // Folded by its own time: the cells take it in as if it had arrived then.
          statsIndex.appended(Number(lastInsertRowid), {
            projectId: m.projectId,
            branch: m.branch,
            t: m.createdAt,
            leaves: record.series,
            workflow: record.parsed ? workflowOf(record.parsed) : workflowOfText(m.payload),
          });
        } else {
          const e = record.row;
          const { lastInsertRowid } = importEvent.run(
            e.id,
            e.projectId,
            e.eventType,
            e.description,
            e.payload,
            e.color,
            e.createdAt,
            e.branch,
            e.status,
          );
          statsIndex.appendedEvent(Number(lastInsertRowid), {
            projectId: e.projectId,
            eventType: e.eventType,
            branch: e.branch,
            status: e.status,
            createdAt: e.createdAt,
            workflow: workflowOfText(e.payload),
          });
        }
      }
    },

    storedIds(projectId, kind, from, to) {
      const table = kind === 'event' ? 'events' : 'metrics';
      const [lo, hi] = marks.seqRange(table, from, to + 1);
      return ids[table].all(projectId, lo, hi, from, to, projectId, from, to) as string[];
    },

    events(projectId, filter, limit, before = NO_CURSOR) {
      const rows = eventRows<EventPageRow>(filter, projectId, before, limit + 1);
      return eventPage(rows, limit);
    },

    metrics(projectId, filter, limit, before = NO_CURSOR) {
      const metricFilter = { branch: filter.branch, from: filter.from, to: filter.to };
      const rows = metricRows<MetricPageRow>(metricFilter, projectId, before, limit + 1);
      return metricPage(rows, limit);
    },
  };
}
