import { describe, expect, it } from 'vitest';
import {
  defaultThreshold,
  minSampleSizeDefault,
  THRESHOLD_TESTS,
  validateModel,
} from '../../../server/domain/verdicts/index.js';

describe('defaults', () => {
  it('a key where lower is better: t_test 0.99 on the upper side, 64 values, from the 8th', () => {
    expect(defaultThreshold('lower')).toEqual({
      test: 't_test',
      lower_boundary: null,
      upper_boundary: 0.99,
      min_sample_size: 8,
      max_sample_size: 64,
    });
  });

  it('a key where higher is better: the lower side', () => {
    expect(defaultThreshold('higher')).toMatchObject({
      lower_boundary: 0.99,
      upper_boundary: null,
    });
  });

  it('no direction, no default', () => {
    expect(defaultThreshold(null)).toBeUndefined();
  });

  it('the defaults are valid models', () => {
    for (const direction of ['lower', 'higher'] as const) {
      expect(validateModel(defaultThreshold(direction) ?? {})).toMatchObject({ ok: true });
    }
  });

  it.each(
    THRESHOLD_TESTS.map((test) => [
      test,
      ['z_score', 't_test', 'log_normal'].includes(test) ? 2 : 1,
    ]),
  )('min_sample_size of %s defaults to %i', (test, want) => {
    expect(minSampleSizeDefault(test)).toBe(want);
  });
});
