import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { durationKey } from './longest-first.js';

/**
 * Writes `test/durations.json`, the order `test/longest-first.ts` starts the files in: each test
 * file's wall time in this run, per project, in whole milliseconds. Used after a full run on a
 * machine of CI's kind (docs/contributing.md):
 *
 *   npx vitest run --reporter=default --reporter=./test/record-durations.ts
 *
 * A run of some files only keeps the other files' recorded times.
 */
export default class RecordDurations implements Reporter {
  private root = '';

  onInit(vitest: Vitest) {
    this.root = vitest.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const path = new URL('./durations.json', import.meta.url);
    const recorded = (existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {}) as Record<
      string,
      number
    >;
    for (const module of modules) {
      recorded[durationKey(module.project.name, this.root, module.moduleId)] = Math.round(
        module.diagnostic().duration,
      );
    }
    const sorted = Object.fromEntries(
      Object.entries(recorded).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    writeFileSync(path, `${JSON.stringify(sorted, null, 2)}\n`);
  }
}
