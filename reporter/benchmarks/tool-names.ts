import { InputError } from '../input-error.js';

/**
 * The tools ci-stats reads, by the names github-action-benchmark's `tool` input takes (so a
 * workflow moves without relearning them), plus hyperfine and Bencher's metric format. Apart
 * from the parsers, so the inputs can check a name without loading them.
 */
export const BENCHMARK_TOOLS = [
  'cargo',
  'go',
  'benchmarkjs',
  'benchmarkluau',
  'pytest',
  'googlecpp',
  'catch2',
  'julia',
  'jmh',
  'benchmarkdotnet',
  'customBiggerIsBetter',
  'customSmallerIsBetter',
  'hyperfine',
  'bmf',
] as const;

export type BenchmarkToolName = (typeof BENCHMARK_TOOLS)[number];

export const isBenchmarkTool = (name: string): name is BenchmarkToolName =>
  (BENCHMARK_TOOLS as readonly string[]).includes(name);

/** The error for a name that is not one of them. */
export const unknownTool = (name: string) =>
  new InputError(
    'benchmark-tool',
    `"${name}" is not a tool ci-stats reads; one of ${BENCHMARK_TOOLS.join(', ')}`,
  );
