// npm run bundle: the Action (dist/index.js) and the CLI (dist/cli.js), each one file built by ncc.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ncc = createRequire(import.meta.url).resolve('@vercel/ncc/dist/ncc/cli.js');
const build = (entry, out) =>
  execFileSync(
    process.execPath,
    [ncc, 'build', entry, '--out', out, '--minify', '--license', 'licenses.txt'].concat([
      '--no-source-map-register',
      '--quiet',
    ]),
    { stdio: 'inherit' },
  );

build('action/index.ts', 'dist');

// ncc names its output index.js: the CLI is built aside and copied in as dist/cli.js.
const aside = mkdtempSync(join(tmpdir(), 'ci-stats-cli-'));
try {
  build('cli/index.ts', aside);
  const code = readFileSync(join(aside, 'index.js'), 'utf8');
  const shebang = '#!/usr/bin/env node\n';
  writeFileSync('dist/cli.js', code.startsWith('#!') ? code : shebang + code);
  chmodSync('dist/cli.js', 0o755);
  copyFileSync(join(aside, 'licenses.txt'), 'dist/cli-licenses.txt');
} finally {
  rmSync(aside, { recursive: true, force: true });
}
