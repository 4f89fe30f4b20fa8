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
export const NO_CURSOR = Number.MAX_SAFE_INTEGER;

function page<Row extends { seq: number }, T>(
  rows: readonly Row[],
  limit: number,
  map: (row: Row) => T,
): Page<T> {
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  const last = items.at(-1);
  return { items: items.map(map), nextBefore: more && last ? last.seq : null };
}

const iso = (ms: number) => new Date(ms).toISOString();

export const eventPage = (rows: readonly EventPageRow[], limit: number): Page<StoredEvent> =>
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

export const metricPage = (rows: readonly MetricPageRow[], limit: number): Page<StoredMetric> =>
  page(rows, limit, (row) => ({
    id: row.id,
    projectId: row.projectId,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    created_at: iso(row.createdAt),
  }));
