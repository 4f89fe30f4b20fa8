/**
 * The benchmark readers (parsers, tinyglobby), compiled and evaluated only when a benchmark file
 * is asked for: the bundler puts them in a chunk of their own, like the JUnit reader.
 */
export const loadBenchmarks = () => import('./benchmarks/read.js');
