/** Records judged per transaction at most: small, so that ingest's commits wait little between them. */
export const MAX_BATCH_RECORDS = 200;
/** Records judged per transaction at least, however wide they are. */
export const MIN_BATCH_RECORDS = 10;
/**
 * Values judged per transaction, about: a batch holds the event loop for its whole transaction,
 * and a record may carry a hundred values or more (issue 22: 200 records × 100 values in one
 * batch, at the start of a server with a backlog, was a suspect for a share page that waited).
 */
export const BATCH_VALUES = 2_000;

/**
 * How many records the next batch takes, from the values per record of the last one: as many as
 * make about BATCH_VALUES values, from MIN_BATCH_RECORDS to MAX_BATCH_RECORDS.
 */
export function nextBatchRecords(last: { records: number; values: number }): number {
  if (last.records === 0) return MAX_BATCH_RECORDS;
  const perRecord = Math.max(last.values / last.records, 1);
  const records = Math.floor(BATCH_VALUES / perRecord);
  return Math.min(MAX_BATCH_RECORDS, Math.max(MIN_BATCH_RECORDS, records));
}
