import { encodeRecordCursor, type RecordPosition } from '../../contract/cursor.js';
import type { EventPage, MetricPage } from '../../contract/readback.js';
import type { RecordQuery } from '../../contract/stats-queries.js';
import type { Storage } from '../storage/storage.js';
import type { ProjectAccess } from './project-access.js';

/** Read-back of a project's events and metrics, newest first, a page at a time, filtered. */
export function recordService(storage: Storage, access: ProjectAccess) {
  return {
    async events(accountId: string, query: RecordQuery): Promise<EventPage> {
      await access.assertOwn({ accountId, projectIds: null }, query.projectId);
      const page = await storage.records.events(query.projectId, query, query.limit, query.cursor);
      return { events: page.items, nextCursor: cursorOf(page.nextBefore) };
    },

    /** Metrics have no type or status: those filters do not apply to them. */
    async metrics(accountId: string, query: RecordQuery): Promise<MetricPage> {
      await access.assertOwn({ accountId, projectIds: null }, query.projectId);
      const { branch, from, to } = query;
      const page = await storage.records.metrics(
        query.projectId,
        { branch, from, to },
        query.limit,
        query.cursor,
      );
      return { metrics: page.items, nextCursor: cursorOf(page.nextBefore) };
    },
  };
}

const cursorOf = (before: RecordPosition | null) =>
  before === null ? null : encodeRecordCursor(before);

export type RecordService = ReturnType<typeof recordService>;
