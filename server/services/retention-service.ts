import { NotFound } from '../domain/domain-errors.js';
import type { KeyOwner, RecordTable, Storage } from '../storage/storage.js';
import type { ProjectAccess } from './project-access.js';

const DAY_MS = 86_400_000;

/** A batch is sized to take about this long, well under the 50 ms it may hold the database. */
const TARGET_BATCH_MS = 5;
const FIRST_BATCH = 50;
const MIN_BATCH = 10;
const MAX_BATCH = 5_000;
/** Freed pages given back per step (800 kB of 4 kB pages): each step is a short write too. */
const RECLAIM_PAGES = 200;

export interface SweepReport {
  /** Records deleted (events, metric records, test results), over every project. */
  deleted: number;
  /** Test runs deleted with their last results. */
  testRuns: number;
  batches: number;
  /** The longest batch, in ms: what the sweep held the database for at most (RetentionBatch.ms). */
  longestBatchMs: number;
  /** Whole partitions dropped (PostgreSQL: pg-partitions.ts), before the batches. */
  partitionsDropped: number;
  /** The longest drop of one, in ms (its transaction: ingest waits for it, as for a batch). */
  longestDropMs: number;
  /** Free pages left in the file after the sweep gave space back (SQLite; 0 on PostgreSQL). */
  freePages: number;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** The next batch's size: halved after a batch that took too long, grown after a quick one. */
const nextSize = (size: number, took: number) =>
  took > TARGET_BATCH_MS
    ? Math.max(MIN_BATCH, Math.floor(size / 2))
    : Math.min(MAX_BATCH, Math.ceil(size * 1.5));

/**
 * Per-project retention (docs/operations.md, Retention): how long raw records are kept, records
 * pinned against it, and the sweep that deletes what is past it in short batches while ingest
 * goes on. The statistics cells are never deleted: a chart of last year still draws.
 */
export function retentionService(
  storage: Storage,
  access: ProjectAccess,
  /** Told which project's records changed (none named: any project's), for the storage use. */
  changed: (projectId?: string) => void = () => {},
) {
  return {
    async get(caller: Pick<KeyOwner, 'accountId' | 'projectIds'>, projectId: string) {
      await access.assertOwn(caller, projectId);
      return { projectId, retentionDays: await storage.retention.retentionOf(projectId) };
    },

    async set(
      caller: Pick<KeyOwner, 'accountId' | 'projectIds'>,
      projectId: string,
      retentionDays: number | null,
    ) {
      await access.assertOwn(caller, projectId);
      await storage.retention.setRetention(projectId, retentionDays);
      return { projectId, retentionDays };
    },

    async pin(
      caller: KeyOwner,
      input: { projectId: string; kind: 'event' | 'metric'; id: string; pinned: boolean },
    ) {
      await access.assertOwn(caller, input.projectId);
      const table: RecordTable = input.kind === 'event' ? 'events' : 'metrics';
      const found = await storage.retention.pin(input.projectId, table, input.id, input.pinned);
      if (!found) throw new NotFound('record');
      changed(input.projectId);
      return { id: input.id, kind: input.kind, pinned: input.pinned };
    },

    /**
     * Deletes every project's records past its retention: on PostgreSQL whole monthly
     * partitions first where every record in one is past it, then oldest first, in batches sized to
     * take about 5 ms (halved when one took longer, grown when quicker), each its own
     * transaction, yielding to the event loop between them so requests go on being served; then
     * gives the freed space back to the file system (SQLite).
     */
    async sweep(now = Date.now()): Promise<SweepReport> {
      const report: SweepReport = {
        deleted: 0,
        testRuns: 0,
        batches: 0,
        longestBatchMs: 0,
        partitionsDropped: 0,
        longestDropMs: 0,
        freePages: 0,
      };
      const parts = await storage.retention.dropExpiredPartitions?.(now);
      if (parts) {
        report.partitionsDropped = parts.dropped.length;
        report.longestDropMs = parts.longestMs;
      }
      let size = FIRST_BATCH;
      const projects = await storage.retention.withRetention();
      for (const { projectId, retentionDays } of projects) {
        const before = now - retentionDays * DAY_MS;
        for (const table of ['events', 'metrics'] as const) {
          for (let after = 0; ; ) {
            const batch = await storage.retention.deleteBatch(
              projectId,
              table,
              before,
              after,
              size,
            );
            const took = batch.ms;
            report.batches += 1;
            report.deleted += batch.deleted;
            report.longestBatchMs = Math.max(report.longestBatchMs, took);
            size = nextSize(size, took);
            if (batch.done) break;
            after = batch.last;
            await turn();
          }
        }
      }
      // Test results (docs/tests.md), a run's results at a time, oldest run first.
      for (const { projectId, retentionDays } of projects) {
        const before = now - retentionDays * DAY_MS;
        for (;;) {
          const batch = await storage.retention.deleteTestBatch(projectId, before, size);
          report.batches += 1;
          report.deleted += batch.deleted;
          report.testRuns += batch.runs;
          report.longestBatchMs = Math.max(report.longestBatchMs, batch.ms);
          size = nextSize(size, batch.ms);
          if (batch.done) break;
          await turn();
        }
      }
      if (report.deleted > 0 || report.partitionsDropped > 0) changed();
      if (report.deleted > 0) {
        for (let free = Number.POSITIVE_INFINITY; free > 0; ) {
          const step = await storage.retention.reclaim(RECLAIM_PAGES);
          report.longestBatchMs = Math.max(report.longestBatchMs, step.ms);
          report.freePages = step.freePages;
          if (step.freePages >= free) break;
          free = step.freePages;
          await turn();
        }
      }
      return report;
    },
  };
}
