import { BenchmarkFormatError, type BenchmarkResult, type LineTool, result } from './result.js';

/**
 * Catch2's console reporter, v2 and v3: a table per test case,
 *
 * ```text
 * benchmark name          samples    iterations    estimated        (v3: est run time)
 *                         mean       low mean      high mean
 *                         std dev    low std dev   high std dev
 * ------------------------------------------------------------
 * Fibonacci 20            100        2             8.4318 ms
 *                         43.186 us  41.402 us     46.246 us
 *                         11.719 us  7.847 us      17.747 us
 * (blank line)
 * ```
 *
 * The value is the mean, the range its standard deviation.
 */
const HEADER = /^benchmark name +samples +iterations +(estimated|est run time)/;
const START = /(\d+) +(\d+) +\d+(?:\.\d+)? (?:ns|us|ms|s)\s*$/;
const VALUES =
  /^ +(\d+(?:\.\d+)?) (ns|us|ms|s) +\d+(?:\.\d+)? (?:ns|us|ms|s) +\d+(?:\.\d+)? (?:ns|us|ms|s)/;

export const catch2: LineTool = {
  kind: 'lines',
  expected: "Catch2's console output (v2 or v3) of its benchmarks",
  create() {
    const results: BenchmarkResult[] = [];
    let state: 'outside' | 'header' | 'start' | 'mean' | 'stddev' | 'blank' = 'outside';
    let lineNumber = 0;
    let current: { name: string; extra: string; value?: number; unit?: string } | undefined;
    const broken = (what: string) =>
      new BenchmarkFormatError(
        `line ${lineNumber}: ${what} of benchmark "${current?.name}" is missing (mangled Catch2 output)`,
      );
    return {
      line(text) {
        lineNumber++;
        switch (state) {
          case 'outside':
            if (HEADER.test(text)) state = 'header';
            return;
          case 'header':
            if (/^-+$/.test(text)) state = 'start';
            return;
          case 'start': {
            const m = START.exec(text);
            if (!m) {
              state = HEADER.test(text) ? 'header' : 'outside';
              return;
            }
            current = {
              name: text.slice(0, m.index).trim(),
              extra: `${m[1]} samples\n${m[2]} iterations`,
            };
            state = 'mean';
            return;
          }
          case 'mean': {
            const m = VALUES.exec(text);
            if (!m || !current) throw broken('the mean');
            current.value = Number(m[1]);
            current.unit = m[2];
            state = 'stddev';
            return;
          }
          case 'stddev': {
            const m = VALUES.exec(text);
            if (!m || !current) throw broken('the standard deviation');
            // Catch2 picks each figure's unit: the deviation's may differ from the mean's.
            const spread = m[2] === current.unit ? `± ${m[1]}` : `± ${m[1]} ${m[2]}`;
            const made = result(
              current.name,
              current.value ?? Number.NaN,
              current.unit ?? '',
              false,
              spread,
              current.extra,
            );
            if (made) results.push(made);
            state = 'blank';
            return;
          }
          case 'blank':
            if (text.trim() !== '') throw broken('the blank line after the standard deviation');
            state = 'start';
            return;
        }
      },
      end: () => results,
    };
  },
};
