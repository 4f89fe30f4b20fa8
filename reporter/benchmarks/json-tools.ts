import {
  BenchmarkFormatError,
  type BenchmarkResult,
  defined,
  isObject,
  isRate,
  type JsonTool,
  result,
} from './result.js';
import { entries, otherShape } from './shape.js';

/** pytest-benchmark's seconds, as github-action-benchmark shows a mean: in the unit that suits it. */
function humanSeconds(seconds: number): string {
  if (seconds < 1e-6) return `${seconds * 1e9} nsec`;
  if (seconds < 1e-3) return `${seconds * 1e6} usec`;
  if (seconds < 1) return `${seconds * 1e3} msec`;
  return `${seconds} sec`;
}

const num = (value: unknown): number => (typeof value === 'number' ? value : Number.NaN);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** pytest-benchmark's `--benchmark-json`: operations per second of each test (its `fullname`). */
export const pytest: JsonTool = {
  kind: 'json',
  expected: "pytest-benchmark's JSON (--benchmark-json)",
  parse(document) {
    if (!isObject(document) || !('machine_info' in document))
      throw otherShape(this.expected, document);
    return defined(
      entries(document, 'benchmarks', this.expected).map((bench) => {
        const stats = isObject(bench.stats) ? bench.stats : {};
        return result(
          str(bench.fullname),
          num(stats.ops),
          'iter/sec',
          true,
          `stddev: ${num(stats.stddev)}`,
          `mean: ${humanSeconds(num(stats.mean))}\nrounds: ${num(stats.rounds)}`,
        );
      }),
    );
  },
};

/** Google Benchmark's `--benchmark_format=json`: each entry's real time per iteration. */
export const googlecpp: JsonTool = {
  kind: 'json',
  expected: "Google Benchmark's JSON (--benchmark_format=json)",
  parse(document) {
    if (!isObject(document) || !('context' in document)) throw otherShape(this.expected, document);
    return defined(
      entries(document, 'benchmarks', this.expected).map((b) =>
        result(
          str(b.name),
          num(b.real_time),
          `${str(b.time_unit)}/iter`,
          false,
          undefined,
          `iterations: ${num(b.iterations)}\ncpu: ${num(b.cpu_time)} ${str(b.time_unit)}\nthreads: ${num(b.threads)}`,
        ),
      ),
    );
  },
};

/**
 * JMH's `-rf json`: each benchmark's primary metric, named with its parameters as
 * github-action-benchmark names it. Throughput (`thrpt`, `ops/s`…) is bigger-is-better.
 */
export const jmh: JsonTool = {
  kind: 'json',
  expected: "JMH's JSON (-rf json)",
  parse(document) {
    if (
      !Array.isArray(document) ||
      (document.length > 0 && !(isObject(document[0]) && 'primaryMetric' in document[0]))
    )
      throw otherShape(this.expected, document);
    return defined(
      entries(document, undefined, this.expected).map((b) => {
        const metric = isObject(b.primaryMetric) ? b.primaryMetric : {};
        const unit = str(metric.scoreUnit);
        const params = isObject(b.params) ? ` ( ${JSON.stringify(b.params)} )` : '';
        const higher = b.mode === 'thrpt' || (b.mode === undefined && isRate(unit));
        const error = num(metric.scoreError);
        return result(
          `${str(b.benchmark)}${params}`,
          num(metric.score),
          unit,
          higher,
          Number.isFinite(error) ? `± ${error}` : undefined,
          `iterations: ${num(b.measurementIterations)}\nforks: ${num(b.forks)}\nthreads: ${num(b.threads)}`,
        );
      }),
    );
  },
};

/** BenchmarkDotNet's JSON exporter: each benchmark's mean, in nanoseconds. */
export const benchmarkdotnet: JsonTool = {
  kind: 'json',
  expected: "BenchmarkDotNet's JSON exporter (--exporters json)",
  parse(document) {
    return defined(
      entries(document, 'Benchmarks', this.expected).map((b) => {
        const stats = isObject(b.Statistics) ? b.Statistics : {};
        return result(
          str(b.FullName),
          num(stats.Mean),
          'ns',
          false,
          `± ${num(stats.StandardDeviation)}`,
        );
      }),
    );
  },
};

/** BenchmarkTools.jl's `BenchmarkTools.save`: every TrialEstimate of the nested groups, in ns. */
export const julia: JsonTool = {
  kind: 'json',
  expected: "BenchmarkTools.jl's JSON (BenchmarkTools.save of a BenchmarkGroup of estimates)",
  parse(document) {
    if (!Array.isArray(document) || !Array.isArray(document[1]))
      throw otherShape(this.expected, document);
    const found: (BenchmarkResult | undefined)[] = [];
    const walk = (group: unknown, labels: string[]) => {
      if (
        !Array.isArray(group) ||
        group[0] !== 'BenchmarkGroup' ||
        !isObject(group[1]) ||
        !isObject(group[1].data)
      )
        throw new BenchmarkFormatError(
          `expected a BenchmarkGroup at "${labels.join('/')}" (${this.expected})`,
        );
      for (const [key, value] of Object.entries(group[1].data)) {
        const pair: unknown[] = Array.isArray(value) ? value : [];
        const kind = pair[0];
        if (kind === 'BenchmarkGroup') walk(value, [...labels, key]);
        else if (kind === 'TrialEstimate' && isObject(pair[1])) {
          const e = pair[1];
          const params = Array.isArray(e.params) ? e.params[1] : undefined;
          found.push(
            result(
              [...labels, key].join('/'),
              num(e.time),
              'ns',
              false,
              undefined,
              `gctime=${num(e.gctime)}\nmemory=${num(e.memory)}\nallocs=${num(e.allocs)}\nparams=${JSON.stringify(params)}`,
            ),
          );
        } else if (kind === 'Trial') {
          throw new BenchmarkFormatError(
            `"${[...labels, key].join('/')}" is a Trial: save an estimate (minimum, median, mean...) of it, BenchmarkTools.save("out.json", median(results))`,
          );
        } else
          throw new BenchmarkFormatError(
            `"${[...labels, key].join('/')}" is a ${String(kind)}, not a TrialEstimate`,
          );
      }
    };
    for (const group of document[1]) walk(group, []);
    return defined(found);
  },
};

/** The custom formats: an array of `{ name, value, unit, range?, extra? }`; the tool says the direction. */
function custom(biggerIsBetter: boolean): JsonTool {
  return {
    kind: 'json',
    expected: 'a JSON array of { "name", "value", "unit", "range"?, "extra"? }',
    parse(document) {
      return entries(document, undefined, this.expected).map((entry, index) => {
        const value =
          typeof entry.value === 'string' && entry.value.trim() !== ''
            ? Number(entry.value)
            : entry.value;
        const made = result(
          typeof entry.name === 'string' || typeof entry.name === 'number'
            ? String(entry.name)
            : '',
          typeof value === 'number' ? value : Number.NaN,
          typeof entry.unit === 'string' ? entry.unit : '',
          biggerIsBetter,
          entry.range === undefined ? undefined : String(entry.range),
          entry.extra === undefined ? undefined : String(entry.extra),
        );
        if (!made)
          throw new BenchmarkFormatError(
            `entry ${index + 1} needs a non-empty "name" and "unit" and a finite "value"`,
          );
        return made;
      });
    },
  };
}
export const customBiggerIsBetter = custom(true);
export const customSmallerIsBetter = custom(false);

/** hyperfine's `--export-json`: each command's mean wall time, in seconds. */
export const hyperfine: JsonTool = {
  kind: 'json',
  expected: "hyperfine's JSON (--export-json)",
  parse(document) {
    return defined(
      entries(document, 'results', this.expected).map((r) => {
        const times = Array.isArray(r.times) ? r.times.length : undefined;
        return result(
          str(r.command),
          num(r.mean),
          's',
          false,
          `± ${num(r.stddev)}`,
          [
            `median: ${num(r.median)} s`,
            `min: ${num(r.min)} s`,
            `max: ${num(r.max)} s`,
            ...(times === undefined ? [] : [`runs: ${times}`]),
          ].join('\n'),
        );
      }),
    );
  },
};

/** Bencher's built-in measures: their units and directions. Another measure is lower-is-better, its unit its name. */
const MEASURES: Record<string, [unit: string, higher: boolean]> = {
  latency: ['ns', false],
  throughput: ['ops/s', true],
  'file-size': ['B', false],
  'build-time': ['s', false],
  instructions: ['instructions', false],
  cycles: ['cycles', false],
};

/**
 * Bencher's metric format (BMF): `{ "<benchmark>": { "<measure>": { value, lower_value?,
 * upper_value? } } }`, one result per benchmark and measure, named `<benchmark> - <measure>`
 * whatever the number of measures, so a series keeps its name when a measure is added.
 */
export const bmf: JsonTool = {
  kind: 'json',
  expected: 'Bencher\'s metric format, { "<benchmark>": { "<measure>": { "value": … } } }',
  parse(document) {
    if (!isObject(document)) throw otherShape(this.expected, document);
    const found: BenchmarkResult[] = [];
    for (const [benchmark, measures] of Object.entries(document)) {
      if (!isObject(measures)) throw otherShape(this.expected, document);
      for (const [measure, metric] of Object.entries(measures)) {
        if (!isObject(metric) || !('value' in metric)) throw otherShape(this.expected, document);
        const [unit, higher] = MEASURES[measure] ?? [measure, false];
        const low = num(metric.lower_value);
        const high = num(metric.upper_value);
        const range =
          Number.isFinite(low) || Number.isFinite(high)
            ? `${Number.isFinite(low) ? low : ''} .. ${Number.isFinite(high) ? high : ''}`
            : undefined;
        const made = result(`${benchmark} - ${measure}`, num(metric.value), unit, higher, range);
        if (!made)
          throw new BenchmarkFormatError(`"${benchmark}" "${measure}": needs a finite "value"`);
        found.push(made);
      }
    }
    return found;
  },
};
