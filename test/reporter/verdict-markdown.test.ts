import { describe, expect, it } from 'vitest';
import { readComparison } from '../../reporter/verdict/comparison.js';
import { commentMarker, verdictMarkdown } from '../../reporter/verdict/verdict-markdown.js';
import { comparedKey, comparisonOf } from '../helpers/comparisons.js';

/** The verdict's Markdown (comment, check run, job summary, merge-request note). */

const rows = (text: string) => text.split('\n').filter((line) => line.startsWith('| `'));

describe('the verdict as Markdown', () => {
  it('headline, base, regressions first by size, the rest in <details>', () => {
    const text = verdictMarkdown({
      projectId: 'p1',
      comparison: comparisonOf([
        comparedKey('a_ok', { value: 101 }),
        comparedKey('small_regression', { value: 130, change: 0.3, verdict: 'regression' }),
        comparedKey('big_regression', { value: 200, change: 1, verdict: 'regression' }),
        comparedKey('faster', { value: 50, change: -0.5, verdict: 'improvement' }),
      ]),
      tests: { total: 10, failed: 1, errors: 0, skipped: 2 },
      link: 'https://stats.example/s/abc',
    });
    expect(text.startsWith(`${commentMarker('p1')}\n### ci-stats · \`p1\`: ❌ 2 regressions`)).toBe(
      true,
    );
    expect(text).toContain(
      'Compared with `main` at 222222222222; this run: `feature/cache` at 111111111111.',
    );
    expect(rows(text).map((row) => row.split(' | ')[0])).toEqual([
      '| `big_regression`',
      '| `small_regression`',
      '| `faster`',
      '| `a_ok`',
    ]);
    expect(rows(text)[0]).toBe(
      '| `big_regression` | ms | 100 | 200 | +100 % | ❌ regression | t\\_test ≤ 120 (n = 64) |',
    );
    expect(text.indexOf('<details><summary>1 key without a notable change</summary>')).toBeLessThan(
      text.indexOf('| `a_ok`'),
    );
    expect(text).toContain('Tests: 10 run, 1 failed, 0 errors, 2 skipped ❌.');
    expect(text).toContain('[All charts of this project](https://stats.example/s/abc)');
  });

  it('no baseline yet, and no regression', () => {
    const none = verdictMarkdown({
      projectId: 'p',
      comparison: comparisonOf([
        comparedKey('x', { verdict: 'no-baseline', baseline: null, change: null }),
      ]),
    });
    expect(none).toContain(': ⚠️ no baseline yet');
    expect(rows(none)[0]).toContain('| – | 100 | – | ⚠️ no baseline |');
    const ok = verdictMarkdown({
      projectId: 'p',
      comparison: comparisonOf([comparedKey('x'), comparedKey('y', { verdict: 'no-baseline' })]),
    });
    expect(ok).toContain(': ✅ no regression');
  });

  it('text from the data cannot break the table or inject HTML', () => {
    const text = verdictMarkdown({
      projectId: 'p',
      comparison: comparisonOf([
        comparedKey('a|b`<img src=x>', { unit: '<b>|ms', verdict: 'regression' }),
      ]),
    });
    const row = rows(text)[0] ?? '';
    // Seven cells: the key's pipe is inside a code span with its backtick replaced, the unit's escaped.
    expect(row.split(/(?<!\\)\|/).length - 2).toBe(7);
    expect(row).toContain("`a\\|b'<img src=x>`");
    expect(row).toContain('&#60;b&#62;\\|ms');
  });

  it('any number of keys stays under the limit; the rest is counted, regressions shown first', () => {
    const keys = Array.from({ length: 5000 }, (_, i) =>
      comparedKey(`k${String(i).padStart(4, '0')}-${'x'.repeat(80)}`, {
        verdict: i < 10 ? 'regression' : 'ok',
      }),
    );
    for (const limit of [65_536, 10_000, 2_000]) {
      const text = verdictMarkdown({ projectId: 'p', comparison: comparisonOf(keys) }, limit);
      expect(text.length).toBeLessThanOrEqual(limit);
      const shown = rows(text).length;
      expect(shown).toBeGreaterThan(0);
      expect(rows(text)[0]).toContain('regression');
      expect(text).toContain(`… and ${5000 - shown} more keys not shown`);
    }
  });
});

describe('reading the compare answer', () => {
  it('accepts the specified shape and refuses anything else', () => {
    const good = comparisonOf([comparedKey('a')]);
    expect(readComparison(JSON.parse(JSON.stringify(good)))).toEqual(good);
    expect(
      readComparison({ ...good, keys: [{ ...good.keys[0], verdict: 'bad' }] }),
    ).toBeUndefined();
    expect(readComparison({ ...good, keys: [{ ...good.keys[0], value: '1' }] })).toBeUndefined();
    expect(readComparison({ ...good, record: { id: 1 } })).toBeUndefined();
    expect(readComparison({ message: 'ok', id: 'x' })).toBeUndefined();
  });
});
