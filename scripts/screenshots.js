#!/usr/bin/env node
// Regenerates the screenshots of the pages people read first (docs/screenshots/<page>-<width>-
// <scheme>.png: the project page, the dashboard overview and a public page at 1280 and 390 px,
// light and dark) from the browser test that also holds them to no axe-core violation
// (test/browser/pages-at-a-glance.test.ts), on SQLite, with Chromium at /usr/bin/chromium (or
// CHROMIUM_PATH).  npm run screenshots
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--project', 'sqlite', 'test/browser/pages-at-a-glance.test.ts'],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, SCREENSHOTS_DIR: `${root}docs/screenshots` },
  },
);
process.exit(run.status ?? 1);
