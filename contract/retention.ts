import * as z from 'zod/mini';
import { requiredText } from './fields.js';
import { Limits } from './limits.js';

/** Longest retention that can be set: a hundred years (longer: leave it unset, keep forever). */
export const MAX_RETENTION_DAYS = 36_500;

/** POST /stats/set-retention: days raw records are kept; null keeps them forever (the default). */
export const SetRetentionRequest = z.strictObject({
  projectId: requiredText(Limits.projectIdLength),
  retentionDays: z.nullable(z.int().check(z.gte(1), z.lte(MAX_RETENTION_DAYS))),
});

/** 200 body of set-retention and get-retention. */
export interface Retention {
  projectId: string;
  retentionDays: number | null;
}

/** POST /stats/pin-record: a record kept whatever the retention (`pinned: false` unpins it). */
export const PinRecordRequest = z.strictObject({
  projectId: requiredText(Limits.projectIdLength),
  kind: z.enum(['event', 'metric']),
  id: requiredText(64),
  pinned: z._default(z.boolean(), true),
});

/** 200 body of pin-record. */
export interface PinnedRecord {
  id: string;
  kind: 'event' | 'metric';
  pinned: boolean;
}
