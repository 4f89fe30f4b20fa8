import { BenchmarkFormatError, isObject } from './result.js';

/** What a JSON document looks like, for the error that says it is not what the tool makes. */
export function describeJson(document: unknown): string {
  if (Array.isArray(document)) {
    const first = document[0];
    if (document.length === 0) return 'an empty JSON array';
    if (isObject(first) && 'jmhVersion' in first) return "JMH's JSON (tool jmh)";
    if (isObject(first) && 'name' in first && 'value' in first)
      return 'a JSON array of { name, value, unit } (tool customSmallerIsBetter or customBiggerIsBetter)';
    if (isObject(first) && 'Julia' in first) return "BenchmarkTools.jl's JSON (tool julia)";
    return 'a JSON array of something else';
  }
  if (!isObject(document)) return `a JSON ${document === null ? 'null' : typeof document}`;
  if (Array.isArray(document.results)) return "hyperfine's --export-json (tool hyperfine)";
  if (Array.isArray(document.Benchmarks)) return "BenchmarkDotNet's JSON (tool benchmarkdotnet)";
  if (Array.isArray(document.benchmarks) && 'machine_info' in document)
    return "pytest-benchmark's JSON (tool pytest)";
  if (Array.isArray(document.benchmarks) && 'context' in document)
    return "Google Benchmark's JSON (tool googlecpp)";
  const values = Object.values(document);
  if (
    values.length > 0 &&
    values.every((v) => isObject(v) && Object.values(v).every((m) => isObject(m) && 'value' in m))
  )
    return "Bencher's metric format (tool bmf)";
  const keys = Object.keys(document).slice(0, 3);
  return keys.length === 0
    ? 'an empty JSON object'
    : `a JSON object with ${keys.map((k) => `"${k}"`).join(', ')}…`;
}

/** The error for a document of another shape than `expected`. */
export const otherShape = (expected: string, document: unknown) =>
  new BenchmarkFormatError(`expected ${expected}, found ${describeJson(document)}`);

/** Entry `index` of an array, checked to be an object. */
export function entries(
  document: unknown,
  field: string | undefined,
  expected: string,
): Record<string, unknown>[] {
  const list = field === undefined ? document : isObject(document) ? document[field] : undefined;
  if (!Array.isArray(list)) throw otherShape(expected, document);
  return list.map((entry, index) => {
    if (!isObject(entry))
      throw new BenchmarkFormatError(`entry ${index + 1} is not a JSON object (${expected})`);
    return entry;
  });
}
