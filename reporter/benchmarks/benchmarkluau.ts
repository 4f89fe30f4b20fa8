import { type BenchmarkResult, defined, type LineTool, result } from './result.js';

/** Luau's bench.py: `SUCCESS: base64   :   15.041ms +/-  0.636% on luau`. */
const LINE = /^SUCCESS:\s*(.+?)\s*:\s*([\d.]+)\s*([a-zA-Zµμ]+)\s+\+\/-\s*([\d.]+%)\s+on\s+(\S+)/;

export const benchmarkluau: LineTool = {
  kind: 'lines',
  expected: "the output of Luau's bench.py",
  create() {
    const results: (BenchmarkResult | undefined)[] = [];
    return {
      line(text) {
        const m = LINE.exec(text);
        if (!m) return;
        const [, name = '', value = '', unit = '', range = '', driver = ''] = m;
        results.push(result(name, Number(value), unit, undefined, `±${range}`, driver));
      },
      end: () => defined(results),
    };
  },
};
