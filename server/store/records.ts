import type { NotificationStatus, StoredEvent, StoredMetric } from '../contract/readback.js';
import type { Db } from '../db/database.js';

/** An event row as written; payload is already serialised JSON, time is epoch ms. */
export interface EventRow {
  id: string;
  projectId: string;
  eventType: string;
  description: string | null;
  payload: string | null;
  color: number | null;
  createdAt: number;
}

export interface MetricRow {
  id: string;
  projectId: string;
  payload: string;
  createdAt: number;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Cursors are opaque to clients: the last seen sequence number, base64url. */
export function encodeCursor(seq: number): string {
  return Buffer.from(String(seq)).toString('base64url');
}

export function decodeCursor(cursor: string): number | undefined {
  const text = Buffer.from(cursor, 'base64url').toString();
  return /^[1-9]\d{0,15}$/.test(text) ? Number(text) : undefined;
}

const NO_CURSOR = Number.MAX_SAFE_INTEGER;

/** A row as read back: the row as written, its position, and its notification's state. */
type EventPageRow = EventRow & {
  seq: number;
  notificationStatus: NotificationStatus | null;
  notificationAttempts: number;
  notificationError: string | null;
};

type MetricPageRow = MetricRow & { seq: number };

function page<Row extends { seq: number }, T>(
  rows: Row[],
  limit: number,
  map: (row: Row) => T,
): Page<T> {
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  const last = items.at(-1);
  return { items: items.map(map), nextCursor: more && last ? encodeCursor(last.seq) : null };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Events and metrics: append-only, read back newest first by project. */
export function recordStore(db: Db) {
  // Positional parameters: binding by name cost a measurable share of an ingest.
  const insertEvent = db.prepare(
    `INSERT INTO events (id, project_id, event_type, description, payload, color, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertMetric = db.prepare(
    'INSERT INTO metrics (id, project_id, payload, created_at) VALUES (?, ?, ?, ?)',
  );
  const eventPage = db.prepare(
    `SELECT e.seq, e.id, e.project_id AS projectId, e.event_type AS eventType, e.description,
            e.payload, e.color, e.created_at AS createdAt,
            o.status AS notificationStatus, o.attempts AS notificationAttempts,
            o.last_error AS notificationError
       FROM events e LEFT JOIN outbox o ON o.event_id = e.id
      WHERE e.project_id = ? AND e.seq < ? ORDER BY e.seq DESC LIMIT ?`,
  );
  const metricPage = db.prepare(
    `SELECT seq, id, project_id AS projectId, payload, created_at AS createdAt
       FROM metrics WHERE project_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
  );

  return {
    insertEvent(e: EventRow): void {
      insertEvent.run(
        e.id,
        e.projectId,
        e.eventType,
        e.description,
        e.payload,
        e.color,
        e.createdAt,
      );
    },

    insertMetric(m: MetricRow): void {
      insertMetric.run(m.id, m.projectId, m.payload, m.createdAt);
    },

    events(projectId: string, limit: number, before = NO_CURSOR): Page<StoredEvent> {
      const rows = eventPage.all(projectId, before, limit + 1) as EventPageRow[];
      return page(rows, limit, (row) => ({
        id: row.id,
        projectId: row.projectId,
        eventType: row.eventType,
        description: row.description,
        payload: row.payload === null ? null : (JSON.parse(row.payload) as Record<string, unknown>),
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
      }));
    },

    metrics(projectId: string, limit: number, before = NO_CURSOR): Page<StoredMetric> {
      const rows = metricPage.all(projectId, before, limit + 1) as MetricPageRow[];
      return page(rows, limit, (row) => ({
        id: row.id,
        projectId: row.projectId,
        payload: JSON.parse(row.payload) as Record<string, unknown>,
        created_at: iso(row.createdAt),
      }));
    },
  };
}

export type RecordStore = ReturnType<typeof recordStore>;
