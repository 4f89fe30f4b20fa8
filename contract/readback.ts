/** Read-back of stored records: GET /stats/get-events and GET /stats/get-metrics (their query: stats-queries.ts). */

export type NotificationStatus = 'pending' | 'delivered' | 'failed';

/** Delivery state of an event's chat notification. */
export interface NotificationState {
  status: NotificationStatus;
  attempts: number;
  lastError: string | null;
}

export interface StoredEvent {
  id: string;
  projectId: string;
  eventType: string;
  description: string | null;
  payload: Record<string, unknown> | null;
  color: number | null;
  created_at: string;
  /** null when the event was stored without a chatWebhook. */
  notification: NotificationState | null;
}

export interface StoredMetric {
  id: string;
  projectId: string;
  payload: Record<string, unknown>;
  created_at: string;
}

/** Pages run newest first; `nextCursor` is opaque and null on the last page. */
export interface EventPage {
  events: StoredEvent[];
  nextCursor: string | null;
}

export interface MetricPage {
  metrics: StoredMetric[];
  nextCursor: string | null;
}
