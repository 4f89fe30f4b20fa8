import { describe, expect, it } from 'vitest';
import { nextBatchRecords } from '../../server/services/verdicts/batch-size.js';

/**
 * The judging worker's batch: about 2,000 values per transaction, from 10 to 200 records
 * (server/services/verdicts/batch-size.ts). Expected sizes worked out by hand from that rule.
 */
describe('records per judging batch, from the values per record of the last batch', () => {
  it.each([
    // [records, values] of the last batch → records of the next
    [0, 0, 200], // nothing judged yet: the most
    [200, 200, 200], // one value a record: 2,000 would fit, 200 at most
    [200, 2_000, 200], // ten a record: exactly 200
    [100, 2_000, 100], // twenty a record
    [20, 2_000, 20], // a hundred a record
    [200, 20_000, 20], // the same in a full batch (issue 22: 200 records × 100 values): 20, not 200
    [10, 3_000, 10], // three hundred a record: 6 would do, 10 at least
    [5, 0, 200], // records without a value count as one each
  ])('%i records with %i values → %i', (records, values, next) => {
    expect(nextBatchRecords({ records, values })).toBe(next);
  });
});
