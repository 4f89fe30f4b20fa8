import { type BenchmarkResult, defined, type LineTool, numberOf, result } from './result.js';

/**
 * `cargo bench` (libtest) and Criterion's bencher output:
 * `test fib_20 ... bench:      59,786.18 ns/iter (+/- 37,302.21)`, optionally followed by
 * libtest's throughput `= 26425 MB/s` (github-action-benchmark drops such a line; here it is
 * the result plus a second one, `<name> - MB/s`).
 */
const LINE =
  /^test (.+?)\s+\.\.\. bench:\s+([\d,.]+) (\S+\/\S+) \(\+\/- ([\d,.]+)\)(?:\s+=\s+([\d,.]+) (\S+))?\s*$/;

export const cargo: LineTool = {
  kind: 'lines',
  expected: "the output of cargo bench (libtest) or Criterion's bencher format",
  create() {
    const results: (BenchmarkResult | undefined)[] = [];
    return {
      line(text) {
        const m = LINE.exec(text);
        if (!m) return;
        const [, name = '', value = '', unit = '', range = '', rate, rateUnit] = m;
        results.push(
          result(name, numberOf(value), unit, undefined, `± ${range.replace(/,/g, '')}`),
        );
        if (rate !== undefined && rateUnit !== undefined) {
          results.push(result(`${name.trim()} - ${rateUnit}`, numberOf(rate), rateUnit));
        }
      },
      end: () => defined(results),
    };
  },
};
