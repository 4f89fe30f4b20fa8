import { benchmarkPayloads } from '../benchmark-payload.js';
import { parseJson } from '../benchmarks/read.js';
import {
  BenchmarkFormatError,
  type BenchmarkResult,
  isObject,
  isRate,
  result,
} from '../benchmarks/result.js';
import { describeJson } from '../benchmarks/shape.js';

/**
 * github-action-benchmark's history (its gh-pages `dev/bench/data.js`, or the same object as
 * `data.json`) as the metric records `POST /stats/import-records` takes: one record per entry of
 * every benchmark set (more when an entry has over 100 results), with the entry's own time, commit
 * and results. Directions are decided by unit as the reporter decides them (a rate is
 * higher-is-better, JMH's throughput included), except for the two custom tools, which say so.
 */

/** One record to import: its original time and its payload. */
export interface ImportRecord {
  created_at: string;
  payload: Record<string, unknown>;
  /**
   * Stable across runs of the import of the same history (set, commit, date, part), so a re-run
   * is recognised and stores nothing twice.
   */
  key: string;
}

export interface GabHistory {
  records: ImportRecord[];
  /** Entries read, over all benchmark sets. */
  entries: number;
  sets: string[];
}

const EXPECTED =
  "github-action-benchmark's data.js (window.BENCHMARK_DATA = {...}) or data.json ({ entries: { <set>: [...] } })";

/** The JSON object of a data.js (its one assignment) or a data.json. */
function documentOf(text: string): unknown {
  const body = text.replace(/^\uFEFF/, '');
  const assignment = /^\s*window\.BENCHMARK_DATA\s*=\s*/.exec(body);
  if (!assignment) return parseJson(body, EXPECTED);
  // The file's text after the assignment, padded so a parse error's line and column are the file's.
  const json = body.slice(assignment[0].length).replace(/;\s*$/, '');
  const padding = body.slice(0, assignment[0].length).replace(/[^\n]/g, ' ');
  return parseJson(padding + json, EXPECTED);
}

const where = (set: string, index: number) => `entries["${set}"][${index}]`;

/** The results of one entry's benches; the direction from its tool (the custom ones say it). */
function resultsOf(tool: string, benches: unknown[], at: string): BenchmarkResult[] {
  const results: BenchmarkResult[] = [];
  benches.forEach((bench, i) => {
    if (!isObject(bench) || typeof bench.name !== 'string' || typeof bench.value !== 'number')
      throw new BenchmarkFormatError(
        `${at}.benches[${i}]: expected { name, value, unit }, found ${describeJson(bench)}`,
      );
    const unit = typeof bench.unit === 'string' ? bench.unit : '';
    const bigger =
      tool === 'customBiggerIsBetter'
        ? true
        : tool === 'customSmallerIsBetter'
          ? false
          : isRate(unit);
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    const one = result(bench.name, bench.value, unit, bigger, text(bench.range), text(bench.extra));
    if (one) results.push(one);
  });
  return results;
}

/** The commit of an entry: its id, url and message's first line, when recorded. */
function commitOf(commit: unknown, at: string): { id: string; url?: string } {
  if (!isObject(commit) || typeof commit.id !== 'string' || commit.id === '')
    throw new BenchmarkFormatError(
      `${at}.commit: expected { id, ... }, found ${describeJson(commit)}`,
    );
  return { id: commit.id, ...(typeof commit.url === 'string' ? { url: commit.url } : {}) };
}

/**
 * The records of a history. `branch`, when given, is recorded on each (github-action-benchmark
 * does not keep it; its history is the branch the workflow ran on).
 */
export function gabHistory(text: string, branch?: string): GabHistory {
  const document = documentOf(text);
  if (!isObject(document) || !isObject(document.entries))
    throw new BenchmarkFormatError(`expected ${EXPECTED}, found ${describeJson(document)}`);
  const records: ImportRecord[] = [];
  let entries = 0;
  const sets = Object.keys(document.entries);
  for (const set of sets) {
    const list = document.entries[set];
    if (!Array.isArray(list))
      throw new BenchmarkFormatError(
        `entries["${set}"]: expected a list, found ${describeJson(list)}`,
      );
    list.forEach((entry, index) => {
      const at = where(set, index);
      if (!isObject(entry) || !Array.isArray(entry.benches) || typeof entry.tool !== 'string')
        throw new BenchmarkFormatError(
          `${at}: expected { commit, date, tool, benches }, found ${describeJson(entry)}`,
        );
      // `date` is when the workflow stored it (epoch ms); the commit's own timestamp is the fallback.
      const commit = commitOf(entry.commit, at);
      const stamp = (entry.commit as Record<string, unknown>).timestamp;
      const time =
        typeof entry.date === 'number'
          ? entry.date
          : typeof stamp === 'string'
            ? Date.parse(stamp)
            : Number.NaN;
      if (!Number.isFinite(time))
        throw new BenchmarkFormatError(
          `${at}.date: expected epoch milliseconds, found ${describeJson(entry.date)}`,
        );
      const results = resultsOf(entry.tool, entry.benches, at);
      entries += 1;
      if (results.length === 0) return;
      const ci = {
        provider: 'github-action-benchmark',
        commit: commit.id,
        ...(commit.url ? { commit_url: commit.url } : {}),
        ...(branch ? { branch } : {}),
      };
      benchmarkPayloads(results, () => ({ ci, benchmark_set: set })).forEach((payload, part) => {
        records.push({
          created_at: new Date(time).toISOString(),
          payload,
          key: `gab:${set}:${commit.id}:${time}:${part}`,
        });
      });
    });
  }
  return { records, entries, sets };
}
