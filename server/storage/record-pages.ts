import type { RecordPosition } from '../../contract/cursor.js';
import type { NotificationStatus, StoredEvent, StoredMetric } from '../../contract/readback.js';
import type { Page } from './storage.js';

/**
 * Read-back pages as every backend builds them: each queries `limit + 1` rows newest first, in
 * these shapes, and hands them here; the extra row only says whether another page follows.
 */

/** An event row as read back: its position, what was written, and its notification's state. */
export interface EventPageRow {
  seq: number;
  id: string;
  projectId: string;
  eventType: string;
  description: string | null;
  payload: string | null;
  color: number | null;
  createdAt: number;
  notificationStatus: NotificationStatus | null;
  notificationAttempts: number;
  notificationError: string | null;
}

export interface MetricPageRow {
  seq: number;
  id: string;
  projectId: string;
  payload: string;
  createdAt: number;
}

/** The `before` of a first page: past every position. */
export const NO_CURSOR: RecordPosition = {
  at: Number.MAX_SAFE_INTEGER,
  seq: Number.MAX_SAFE_INTEGER,
};

type Positioned = { seq: number; createdAt: number };

/** Newest first: by time, then by `seq`. */
export const newestFirst = (a: Positioned, b: Positioned) =>
  b.createdAt - a.createdAt || b.seq - a.seq;

/** Oldest first: by time, then by `seq`. */
export const oldestFirst = (a: Positioned, b: Positioned) => newestFirst(b, a);

/**
 * Two row lists, each in `order`, merged in that order (SQLite's stored-order rows and its
 * imported rows), at most `count` of them.
 */
export function mergeInOrder<Row extends Positioned>(
  a: readonly Row[],
  b: readonly Row[],
  count: number,
  order: (x: Positioned, y: Positioned) => number = newestFirst,
): Row[] {
  if (b.length === 0) return a.slice(0, count);
  if (a.length === 0) return b.slice(0, count);
  const merged: Row[] = [];
  let i = 0;
  let j = 0;
  while (merged.length < count && (i < a.length || j < b.length)) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && order(x, y) <= 0)) {
      merged.push(x as Row);
      i += 1;
    } else {
      merged.push(y);
      j += 1;
    }
  }
  return merged;
}

function page<Row extends Positioned, T>(
  rows: readonly Row[],
  limit: number,
  map: (row: Row) => T,
): Page<T, RecordPosition> {
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  const last = items.at(-1);
  return {
    items: items.map(map),
    nextBefore: more && last ? { at: last.createdAt, seq: last.seq } : null,
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

export const eventPage = (
  rows: readonly EventPageRow[],
  limit: number,
): Page<StoredEvent, RecordPosition> =>
  page(rows, limit, (row) => ({
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

export const metricPage = (
  rows: readonly MetricPageRow[],
  limit: number,
): Page<StoredMetric, RecordPosition> =>
  page(rows, limit, (row) => ({
    id: row.id,
    projectId: row.projectId,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    created_at: iso(row.createdAt),
  }));
