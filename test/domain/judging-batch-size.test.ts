import { describe, expect, it } from 'vitest';
import { nextBatchRecords } from '../../server/services/verdicts/batch-size.js';

/**
 * The judging worker's batch: about 2,000 values and about 8 ms of the event loop per
 * transaction, from 1 to 200 records, 10 before any batch was measured
 * (server/services/verdicts/batch-size.ts). Expected sizes worked out by hand from that rule.
 */
describe('records per judging batch, from the values per record of the last batch', () => {
  it.each([
    // [records, values] of the last batch → records of the next
    [0, 0, 10], // nothing judged yet: a few, until a batch says how wide records are
    [200, 200, 200], // one value a record: 2,000 would fit, 200 at most
    [200, 2_000, 200], // ten a record: exactly 200
    [100, 2_000, 100], // twenty a record
    [20, 2_000, 20], // a hundred a record
    [200, 20_000, 20], // the same in a full batch (issue 22: 200 records × 100 values): 20, not 200
    [10, 3_000, 6], // three hundred a record: 6 (2,000 / 300, rounded down)
    [1, 5_000, 1], // five thousand in one record: one at least
    [5, 0, 200], // records without a value count as one each
  ])('%i records with %i values → %i', (records, values, next) => {
    expect(nextBatchRecords({ records, values })).toBe(next);
  });
});

describe('and from its time on the event loop', () => {
  it.each([
    // [records, values, ms] of the last batch → records of the next
    [20, 2_000, 40, 4], // 2 ms a record: 8 ms is 4 records (issue 22's bulk load)
    [20, 2_000, 8, 20], // on time: the same
    [20, 2_000, 2, 20], // faster: the values' bound (20) still holds
    [200, 200, 2, 200], // 0.01 ms a record: 800 would fit, 200 at most
    [10, 10, 0.5, 160], // 0.05 ms a record: 160
    [1, 100, 50, 1], // one record over its time: one at least
    [20, 2_000, 0, 20], // no time measured: the values alone
  ])('%i records, %i values in %f ms → %i', (records, values, ms, next) => {
    expect(nextBatchRecords({ records, values, ms })).toBe(next);
  });
});
