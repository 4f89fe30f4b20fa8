import type { Statement } from 'better-sqlite3';
import type { NotificationStatus, StoredEvent, StoredMetric } from '../../../contract/readback.js';
import type { EventRow, MetricRow, Page, RecordFilter, RecordRepository } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { sqliteIdempotency } from './sqlite-idempotency.js';
import type { sqliteOutbox } from './sqlite-outbox.js';
import type { sqliteStatsIndex } from './sqlite-stats.js';
import type { Sync } from './sync.js';

/** A row as read back: the row as written, its position, and its notification's state. */
type EventPageRow = EventRow & {
  seq: number;
  notificationStatus: NotificationStatus | null;
  notificationAttempts: number;
  notificationError: string | null;
};

type MetricPageRow = MetricRow & { seq: number };

const NO_CURSOR = Number.MAX_SAFE_INTEGER;

function page<Row extends { seq: number }, T>(
  rows: Row[],
  limit: number,
  map: (row: Row) => T,
): Page<T> {
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  const last = items.at(-1);
  return { items: items.map(map), nextBefore: more && last ? last.seq : null };
}

const iso = (ms: number) => new Date(ms).toISOString();

const FILTERS = [
  ['eventType', 'event_type = ?'],
  ['status', 'status = ?'],
  ['branch', 'branch = ?'],
  ['from', 'created_at >= ?'],
  ['to', 'created_at < ?'],
] as const;

/**
 * A page query with the filters that are set, each combination prepared once: `head` ends with
 * the project and position conditions, `tail` orders and limits. Runs with the head's
 * parameters, then the filters', then the tail's.
 */
function filteredPage(db: Db, head: string, alias: string, tail: string) {
  const prepared = new Map<string, Statement<unknown[]>>();
  return (filter: RecordFilter, ...[projectId, before, limit]: [string, number, number]) => {
    const set = FILTERS.filter(([name]) => filter[name] !== undefined);
    const shape = set.map(([name]) => name).join();
    let statement = prepared.get(shape);
    if (!statement) {
      const where = set.map(([, condition]) => ` AND ${alias}${condition}`).join('');
      statement = db.prepare(`${head}${where} ${tail}`);
      prepared.set(shape, statement);
    }
    return statement.all(projectId, before, ...set.map(([name]) => filter[name]), limit);
  };
}

export const recordWrites = ['append'] as const;

/** Events and metrics: append-only, read back newest first by project. */
export function sqliteRecords(
  db: Db,
  idempotency: ReturnType<typeof sqliteIdempotency>,
  outbox: ReturnType<typeof sqliteOutbox>['repository'],
  statsIndex: ReturnType<typeof sqliteStatsIndex>,
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
  const eventPage = filteredPage(
    db,
    `SELECT e.seq, e.id, e.project_id AS projectId, e.event_type AS eventType, e.description,
            e.payload, e.color, e.created_at AS createdAt,
            o.status AS notificationStatus, o.attempts AS notificationAttempts,
            o.last_error AS notificationError
       FROM events e LEFT JOIN outbox o ON o.event_id = e.id
      WHERE e.project_id = ? AND e.seq < ?`,
    'e.',
    'ORDER BY e.seq DESC LIMIT ?',
  );
  const metricPage = filteredPage(
    db,
    `SELECT seq, id, project_id AS projectId, payload, created_at AS createdAt
       FROM metrics WHERE project_id = ? AND seq < ?`,
    '',
    'ORDER BY seq DESC LIMIT ?',
  );

  return {
    // A write of the group commit: the key, the record and its job commit together.
    append(record, claim) {
      if (claim) {
        const earlier = idempotency.claim(claim);
        if (earlier) return { stored: false, earlier };
      }
      if (record.kind === 'metric') {
        const m = record.row;
        insertMetric.run(m.id, m.projectId, m.payload, m.createdAt, m.branch);
        statsIndex.appended(m.id, record.series);
      } else {
        const e = record.row;
        insertEvent.run(
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
        if (record.notification) outbox.enqueue(record.notification, e.id);
      }
      return { stored: true };
    },

    events(projectId, filter, limit, before = NO_CURSOR) {
      const rows = eventPage(filter, projectId, before, limit + 1) as EventPageRow[];
      return page(
        rows,
        limit,
        (row): StoredEvent => ({
          id: row.id,
          projectId: row.projectId,
          eventType: row.eventType,
          description: row.description,
          payload:
            row.payload === null ? null : (JSON.parse(row.payload) as Record<string, unknown>),
          color: row.color,
          created_at: iso(row.createdAt),
          notification:
            row.notificationStatus === null
              ? null
              : {
                  status: row.notificationStatus,
                  attempts: row.notificationAttempts,
                  lastError: row.notificationError,
                },
        }),
      );
    },

    metrics(projectId, filter, limit, before = NO_CURSOR) {
      const metricFilter = { branch: filter.branch, from: filter.from, to: filter.to };
      const rows = metricPage(metricFilter, projectId, before, limit + 1) as MetricPageRow[];
      return page(
        rows,
        limit,
        (row): StoredMetric => ({
          id: row.id,
          projectId: row.projectId,
          payload: JSON.parse(row.payload) as Record<string, unknown>,
          created_at: iso(row.createdAt),
        }),
      );
    },
  };
}
