/** Records judged per transaction at most: small, so that ingest's commits wait little between them. */
export const MAX_BATCH_RECORDS = 200;
/** Records judged per transaction at least: one, however wide and slow. */
export const MIN_BATCH_RECORDS = 1;
/** Records the first batch takes, before any batch has said how wide and slow records are. */
export const FIRST_BATCH_RECORDS = 10;
/**
 * Values judged per transaction, about: a batch holds the event loop for its whole transaction,
 * and a record may carry a hundred values or more (issue 22: 200 records × 100 values in one
 * batch, at the start of a server with a backlog, was a suspect for a share page that waited).
 */
export const BATCH_VALUES = 2_000;
/**
 * The event loop's time a batch may take, about (ms). On SQLite a batch runs synchronously, so
 * every other tenant's request waits for the batch in progress: a backlog of 32,000 records of
 * 100 values each (a bulk load) in batches of 2,000 values kept another tenant's E7 at a p50 of
 * 59 ms on a quiet machine (BENCHMARKS.md, issue 22). Batches are sized to this time as well,
 * on SQLite only: on PostgreSQL a batch awaits the database between its statements and does not
 * hold the loop, and its time cannot be told from other requests' (judging-worker.ts).
 */
export const BATCH_MS = 8;

/**
 * How many records the next batch takes, from the last one: as many as make about BATCH_VALUES
 * values and, when its time on the event loop is known, about BATCH_MS of it, from
 * MIN_BATCH_RECORDS to MAX_BATCH_RECORDS.
 */
export function nextBatchRecords(last: { records: number; values: number; ms?: number }): number {
  if (last.records === 0) return FIRST_BATCH_RECORDS;
  const perRecord = Math.max(last.values / last.records, 1);
  let records = Math.floor(BATCH_VALUES / perRecord);
  if (last.ms !== undefined && last.ms > 0) {
    records = Math.min(records, Math.floor((last.records * BATCH_MS) / last.ms));
  }
  return Math.min(MAX_BATCH_RECORDS, Math.max(MIN_BATCH_RECORDS, records));
}
