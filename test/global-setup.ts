import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildIfStale } from '../scripts/build-state.js';

/** What the Action's and the CLI's bundles are built from: when any of it changes, dist/ is rebuilt. */
const BUNDLE_INPUTS = [
  'action',
  'cli',
  'reporter',
  'contract',
  'scripts',
  'package.json',
  'package-lock.json',
];
const STAMP = join('build', 'bundle-inputs.sha256');

/** Every file at or under `path`, in a stable order. */
function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(join(path, name)));
}

function inputsDigest(): string {
  const hash = createHash('sha256');
  for (const file of BUNDLE_INPUTS.flatMap(filesUnder)) {
    hash.update(file).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/**
 * Whether dist/ and everything it is built from are exactly as committed: then dist/ is what the
 * sources build (`.ci/run` bundles them and fails when dist/ changes), so a new clone need not
 * bundle again. False when git cannot tell.
 */
function committedAsBuilt(): boolean {
  try {
    const changed = execFileSync(
      'git',
      ['status', '--porcelain', '--untracked-files=all', '--', ...BUNDLE_INPUTS, 'dist'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    return changed.trim() === '';
  } catch {
    return false;
  }
}

/**
 * Before any test: the server compiled to build/ (tests start it the way `npm start` does), and
 * dist/ bundled from the current sources, so the Action's end-to-end tests never run a bundle
 * older than the code (rebuilt only when its inputs changed since the last build here).
 */
export default function setup(): void {
  // Both Vitest projects name this setup; the first one run builds for both.
  const built = globalThis as { ciStatsBuilt?: boolean };
  if (built.ciStatsBuilt) return;
  built.ciStatsBuilt = true;
  // Compiled as `npm run build` does, so that `npm start` afterwards need not compile again.
  buildIfStale(process.cwd(), { force: true });

  const digest = inputsDigest();
  // No stamp: a new clone, whose committed dist/ CI holds to the sources (.ci/run).
  const fresh = existsSync(STAMP) ? readFileSync(STAMP, 'utf8') === digest : committedAsBuilt();
  if (!fresh || !existsSync(join('dist', 'index.js')) || !existsSync(join('dist', 'cli.js'))) {
    process.stdout.write(
      'Sources of the Action or the CLI changed: rebuilding dist/ (npm run bundle)\n',
    );
    execFileSync('npm', ['run', '--silent', 'bundle'], { stdio: 'inherit' });
  }
  // From now on this clone's dist/ is held to these inputs, committed or not.
  mkdirSync('build', { recursive: true });
  writeFileSync(STAMP, digest);
}
