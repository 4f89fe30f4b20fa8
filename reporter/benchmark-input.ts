import { MAX_BENCHMARKS } from './benchmark-payload.js';
import { loadBenchmarks } from './benchmarks-loader.js';
import { InputError } from './input-error.js';
import type { Inputs } from './inputs.js';

/**
 * Reads the step's benchmark files into `inputs.benchmarks` (both entries call this after
 * parsing their inputs); returns the files read, or undefined when none was asked for.
 */
export async function readBenchmarkInputs(
  inputs: Inputs,
  warn: (message: string) => void,
  cwd: string = process.cwd(),
): Promise<string[] | undefined> {
  if (inputs.benchmarkTool === undefined) return undefined;
  const { readBenchmarkFiles } = await loadBenchmarks();
  // One past the most a step sends: enough to know there are too many without keeping them all.
  const { results, found, files } = await readBenchmarkFiles(
    inputs.benchmarkTool,
    inputs.benchmarkFiles,
    warn,
    cwd,
    MAX_BENCHMARKS + 1,
  );
  if (found > MAX_BENCHMARKS) {
    throw new InputError(
      'benchmark-file',
      `holds ${found} benchmark results; at most ${MAX_BENCHMARKS} are sent from one step`,
    );
  }
  inputs.benchmarks = results;
  return files;
}
