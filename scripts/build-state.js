// Whether build/ is older than the TypeScript it is compiled from, and compiling it when it is.
// Plain JavaScript with no dependency: `npm start` and `npm run admin` run it before anything is
// compiled, and a production install (which ships build/ and no sources) runs it too.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** What `tsc -p tsconfig.build.json` compiles, and the settings it compiles them with. */
const SOURCE_DIRS = ['contract', 'server', 'bench'];
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
const SOURCE_FILE = /\.(ts|tsx|mts)$/;

/** Written after each successful compilation: build/ is as new as this file's time. */
export const BUILT_STAMP = join('build', '.built');

/** The newest modification time (ms) among the sources under `dir`, and which file it is. */
function newestUnder(dir, newest) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return newest;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = newestUnder(path, newest);
    else if (SOURCE_FILE.test(entry.name)) {
      const time = statSync(path).mtimeMs;
      if (time > newest.time) newest = { time, path };
    }
  }
  return newest;
}

/**
 * Why `root`'s build/ must be compiled again, or undefined when it is up to date: no build yet,
 * or a source (or a compiler setting) newer than the last compilation. A tree without sources (a
 * release archive) is up to date whenever it has its build.
 */
export function staleReason(root, entry = join('build', 'server', 'main.js')) {
  if (!existsSync(join(root, entry))) return 'nothing is built yet';
  let newest = { time: 0, path: '' };
  for (const dir of SOURCE_DIRS) newest = newestUnder(join(root, dir), newest);
  if (newest.time === 0) return undefined;
  for (const file of SETTINGS) {
    const path = join(root, file);
    if (existsSync(path)) {
      const time = statSync(path).mtimeMs;
      if (time > newest.time) newest = { time, path };
    }
  }
  const stamp = join(root, BUILT_STAMP);
  if (!existsSync(stamp)) return 'build/ predates this start script';
  return newest.time > statSync(stamp).mtimeMs ? `${newest.path} changed` : undefined;
}

/** Records that build/ is as new as the sources (after a compilation that succeeded). */
export function markBuilt(root, startedAt = new Date()) {
  const stamp = join(root, BUILT_STAMP);
  writeFileSync(stamp, `${startedAt.toISOString()}\n`);
  // Dated as the compilation's start: a source saved while tsc ran still counts as newer.
  utimesSync(stamp, startedAt, startedAt);
}

/**
 * Compiles `root` with its own TypeScript when the build is stale (or always, with `force`); true
 * when it compiled. Throws with tsc's exit code when compilation fails, or when the sources
 * changed in an install that has no TypeScript (a production install has no sources to change).
 */
export function buildIfStale(
  root,
  { force = false, log = (line) => process.stderr.write(`${line}\n`) } = {},
) {
  const reason = force ? 'asked to' : staleReason(root);
  if (reason === undefined) return false;
  let tsc;
  try {
    tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    throw new Error(`build/ is out of date (${reason}) and TypeScript is not installed here`);
  }
  log(`Compiling (${reason})…`);
  const started = new Date();
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    throw Object.assign(new Error('TypeScript compilation failed'), { exitCode: result.status });
  }
  markBuilt(root, started);
  return true;
}
