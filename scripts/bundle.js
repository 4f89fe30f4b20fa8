// npm run bundle: the Action (dist/index.js) and the CLI (dist/cli.js), each one file built by ncc.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const ncc = createRequire(import.meta.url)('@vercel/ncc');

/**
 * CommonJS output (`esm: false`; the CLI's `ncc build` has no such switch): Node starts a
 * CommonJS main file without its ES module loader, which costs a reporting step ≈ 8 ms of its
 * ≈ 100 (BENCHMARKS.md, "Reporting step time"). dist/package.json says so to Node.
 */
async function build(entry, file, licenses, shebang = false) {
  const { code, assets } = await ncc(resolve(entry), {
    esm: false,
    minify: true,
    sourceMapRegister: false,
    license: 'licenses.txt',
    quiet: true,
  });
  const line = '#!/usr/bin/env node\n';
  writeFileSync(`dist/${file}`, shebang && !code.startsWith('#!') ? line + code : code);
  writeFileSync(`dist/${licenses}`, assets['licenses.txt'].source);
}

mkdirSync('dist', { recursive: true });
writeFileSync('dist/package.json', `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
await build('action/index.ts', 'index.js', 'licenses.txt');
await build('cli/index.ts', 'cli.js', 'cli-licenses.txt', true);
chmodSync('dist/cli.js', 0o755);
