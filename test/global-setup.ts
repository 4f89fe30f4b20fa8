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
  const fresh = existsSync(STAMP) && readFileSync(STAMP, 'utf8') === digest;
  if (!fresh || !existsSync(join('dist', 'index.js')) || !existsSync(join('dist', 'cli.js'))) {
    process.stdout.write(
      'Sources of the Action or the CLI changed: rebuilding dist/ (npm run bundle)\n',
    );
    execFileSync('npm', ['run', '--silent', 'bundle'], { stdio: 'inherit' });
    mkdirSync('build', { recursive: true });
    writeFileSync(STAMP, digest);
  }
}
