import { describe, expect, it } from 'vitest';
import { judge, type Limits } from '../../../server/domain/verdicts/index.js';

const BOTH: Limits = { baseline: 100, lower_limit: 90, upper_limit: 110, sample_size: 10 };
const UPPER_ONLY: Limits = { ...BOTH, lower_limit: null };
const LOWER_ONLY: Limits = { ...BOTH, upper_limit: null };

describe('judge', () => {
  it.each([
    // lower is better: above the upper limit is a regression, below the lower an improvement.
    [111, BOTH, 'lower', 'regression', 'upper', 110],
    [89, BOTH, 'lower', 'improvement', 'lower', 90],
    [100, BOTH, 'lower', 'ok', null, null],
    // On the limit is within it.
    [110, BOTH, 'lower', 'ok', null, null],
    [90, BOTH, 'lower', 'ok', null, null],
    // higher is better: the reverse.
    [111, BOTH, 'higher', 'improvement', 'upper', 110],
    [89, BOTH, 'higher', 'regression', 'lower', 90],
    // A side without a limit never fires.
    [50, UPPER_ONLY, 'lower', 'ok', null, null],
    [500, LOWER_ONLY, 'higher', 'ok', null, null],
    [500, UPPER_ONLY, 'lower', 'regression', 'upper', 110],
    // No limits: no baseline.
    [500, undefined, 'lower', 'no-baseline', null, null],
    // No direction: no regression or improvement, but the limit passed is said.
    [500, BOTH, null, 'no-direction', 'upper', 110],
    [95, BOTH, null, 'no-direction', null, null],
    [500, undefined, null, 'no-direction', null, null],
  ] as const)(
    '%f against %j, %s is better: %s (%s %s)',
    (value, limits, direction, verdict, side, limit) => {
      expect(judge(value, limits, direction)).toEqual({ verdict, side, limit });
    },
  );
});
