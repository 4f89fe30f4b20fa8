// npm run release: the files a release attaches (docs/releasing.md), in release/ (or --out <dir>):
//   ci-stats-<version>.tgz          the CLI's package (npm pack ./dist): one file, no dependency
//   ci-stats-server-<version>.tar.gz the server, compiled: build/, the docs, deploy/, the lockfile
//   SHA256SUMS
// The server archive holds no TypeScript: installed with `npm ci --omit=dev`, it starts at once.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildIfStale } from './build-state.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { out: { type: 'string', default: 'release' } } });
const out = resolve(values.out);
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** What the server needs at run time, and what an operator reads; nothing to compile. */
const SERVER_FILES = [
  'package.json',
  'package-lock.json',
  'patches',
  'build/server',
  'build/contract',
  'build/.built',
  'scripts/start.js',
  'scripts/build-state.js',
  'docs',
  'deploy',
  'README.md',
  'CHANGELOG.md',
  'BENCHMARKS.md',
];

buildIfStale(root, { force: true });
mkdirSync(out, { recursive: true });

// The CLI: the committed bundle, as CI checked it.
const cli = `ci-stats-${version}.tgz`;
execFileSync('npm', ['pack', join(root, 'dist'), '--silent', '--pack-destination', out], {
  stdio: ['ignore', 'ignore', 'inherit'],
});

// The server: a folder named after the release, archived.
const name = `ci-stats-server-${version}`;
const staging = join(out, name);
rmSync(staging, { recursive: true, force: true });
for (const file of SERVER_FILES) {
  if (!existsSync(join(root, file))) throw new Error(`${file} is missing: cannot make ${name}`);
  cpSync(join(root, file), join(staging, file), { recursive: true });
}
const server = `${name}.tar.gz`;
execFileSync('tar', ['-czf', join(out, server), '-C', out, name]);
rmSync(staging, { recursive: true, force: true });

const sums = [cli, server].map((file) => {
  const digest = createHash('sha256')
    .update(readFileSync(join(out, file)))
    .digest('hex');
  return `${digest}  ${file}\n`;
});
writeFileSync(join(out, 'SHA256SUMS'), sums.join(''));
process.stdout.write(`${[cli, server, 'SHA256SUMS'].map((f) => join(out, f)).join('\n')}\n`);
