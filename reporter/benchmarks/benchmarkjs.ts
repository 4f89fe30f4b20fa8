import { type BenchmarkResult, defined, type LineTool, numberOf, result } from './result.js';

/** Benchmark.js's cycle lines: `fib(20) x 11,465 ops/sec ±1.12% (91 runs sampled)`. */
const TAIL = /^ x ([\d,.]+)\s+(\S+)\s+((?:±|\+-)[^%]+%) \((\d+) runs? sampled\)\s*$/;

export const benchmarkjs: LineTool = {
  kind: 'lines',
  expected: "Benchmark.js's output (String(event.target) of each cycle)",
  create() {
    const results: (BenchmarkResult | undefined)[] = [];
    return {
      line(text) {
        // The name may itself hold " x ": the last one starts the figures.
        const at = text.lastIndexOf(' x ');
        if (at === -1) return;
        const m = TAIL.exec(text.slice(at));
        if (!m) return;
        const [, value = '', unit = '', range = '', runs = ''] = m;
        results.push(
          result(text.slice(0, at), numberOf(value), unit, undefined, range, `${runs} samples`),
        );
      },
      end: () => defined(results),
    };
  },
};
