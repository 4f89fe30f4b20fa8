import * as z from 'zod/mini';
import { decodeCursor } from './cursor.js';
import { SpecError } from './error-texts.js';
import { concerns, type IssuePaths, requiredText } from './fields.js';
import { Limits } from './limits.js';

/** Read-back of stored records: GET /stats/get-events and GET /stats/get-metrics. */

/** `limit`: 1-200, written as plain digits. */
const PageSize = z.pipe(
  z.string().check(
    z.regex(/^\d{1,3}$/),
    z.refine((text) => Number(text) >= 1 && Number(text) <= Limits.pageSizeMax),
  ),
  z.transform(Number),
);

/** `cursor`: the opaque `nextCursor` of the previous page, as the sequence number it encodes. */
const Cursor = z.pipe(
  z.string(),
  z.transform((cursor, ctx) => {
    const seq = decodeCursor(cursor);
    if (seq === undefined) ctx.issues.push({ code: 'custom', input: cursor, message: 'cursor' });
    return seq ?? 0;
  }),
);

/** The query of both read-back endpoints; unknown parameters are ignored. */
export const PageQuery = z.object({
  projectId: requiredText(Limits.projectIdLength),
  limit: z._default(PageSize, Limits.pageSizeDefault),
  cursor: z.optional(Cursor),
});
export type PageQuery = z.infer<typeof PageQuery>;

/** get-events answers a bad query with E7's 400 text. */
export const getEventsErrorText = SpecError.invalidBody;

/** get-metrics answers with E8's: its project-id text first, else the generic one. */
export const getMetricsErrorText = (paths: IssuePaths): string =>
  concerns(paths, 'projectId') ? SpecError.projectIdRequired : SpecError.invalidBody;

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
