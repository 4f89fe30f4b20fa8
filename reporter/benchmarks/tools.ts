import { benchmarkjs } from './benchmarkjs.js';
import { benchmarkluau } from './benchmarkluau.js';
import { cargo } from './cargo.js';
import { catch2 } from './catch2.js';
import { go } from './go.js';
import {
  benchmarkdotnet,
  bmf,
  customBiggerIsBetter,
  customSmallerIsBetter,
  googlecpp,
  hyperfine,
  jmh,
  julia,
  pytest,
} from './json-tools.js';
import type { BenchmarkTool } from './result.js';
import type { BenchmarkToolName } from './tool-names.js';

/** The tools, by the names github-action-benchmark's `tool` input takes (plus hyperfine and bmf). */
export const TOOLS: Record<BenchmarkToolName, BenchmarkTool> = {
  cargo,
  go,
  benchmarkjs,
  benchmarkluau,
  pytest,
  googlecpp,
  catch2,
  julia,
  jmh,
  benchmarkdotnet,
  customBiggerIsBetter,
  customSmallerIsBetter,
  hyperfine,
  bmf,
};
