import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that spend minutes waiting on real time rather than working: the Discord burst of
 * `channel-delivery.test.ts` (500 messages at Discord's 5 per 2 s, four to five minutes), once
 * per backend. Two of them at once would leave one of the three workers to the CPU's two cores.
 */
const WAITING = ['test/server/channel-delivery.test.ts'];

/** A file's entry in `test/durations.json`: its project and its path from the root. */
export const durationKey = (project: string, root: string, moduleId: string) =>
  `${project}:${relative(root, moduleId)}`;

/**
 * Starts the longest test files first, across both projects, so that no long file starts last
 * and runs alone at the end, and the three workers finish close together. Vitest's own order
 * needs its cache of the last run's durations, which a clean clone (CI) does not have; it then
 * runs each project's larger files first, and a small file that waits on real time could start
 * last. The durations are `test/durations.json`'s, so the order is the same here as in CI;
 * `test/record-durations.ts` writes them from a full run (docs/contributing.md). A file it does
 * not name (a new one) goes first. The waiting files start one after another: each when the
 * previous one ends in a run simulated from the same durations.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const recorded = JSON.parse(
      readFileSync(new URL('./durations.json', import.meta.url), 'utf8'),
    ) as Record<string, number>;
    const root = this.ctx.config.root;
    const path = (spec: TestSpecification) => relative(root, spec.moduleId);
    const durations = new Map(
      files.map((spec) => [
        spec,
        recorded[durationKey(spec.project.name, root, spec.moduleId)] ?? Infinity,
      ]),
    );
    const duration = (spec: TestSpecification) => durations.get(spec) as number;
    const longestFirst = (a: TestSpecification, b: TestSpecification) =>
      duration(a) === duration(b) ? 0 : duration(b) > duration(a) ? 1 : -1;
    const waiting = files.filter((spec) => WAITING.includes(path(spec))).sort(longestFirst);
    const working = files.filter((spec) => !WAITING.includes(path(spec))).sort(longestFirst);

    // The run simulated: each file goes to the worker free first; a waiting file is taken
    // when a worker frees after the previous waiting file's end.
    // As many workers as vitest.config.ts runs (maxWorkers).
    const free = Array.from({ length: this.ctx.config.maxWorkers }, () => 0);
    const order: TestSpecification[] = [];
    let waitEnds = 0;
    while (waiting.length > 0 || working.length > 0) {
      const now = Math.min(...free);
      const worker = free.indexOf(now);
      const next =
        waiting.length > 0 && (now >= waitEnds || working.length === 0)
          ? waiting.shift()
          : working.shift();
      if (!next) break;
      const took = Number.isFinite(duration(next)) ? duration(next) : 0;
      if (WAITING.includes(path(next))) waitEnds = now + took;
      free[worker] = now + took;
      order.push(next);
    }
    return order;
  }
}
