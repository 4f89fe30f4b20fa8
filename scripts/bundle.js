// npm run bundle: the Action (dist/index.js) and the CLI (dist/cli.js), each one file built by ncc.
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { minify } from 'terser';

const ncc = createRequire(import.meta.url)('@vercel/ncc');

/** How webpack's runtime (as ncc emits it) loads a chunk of a dynamic import from its file. */
const CHUNK_FILE_LOAD = 'require("./"+__nccwpck_require__.u(t))';
const CHUNK_FILE = /^(\d+)\.index\.js$/;
/**
 * A chunk larger than this (minified) stays a file of its own beside the bundle: scanning a
 * string costs little, but half a megabyte of it (Octokit with its HTTP stack, @actions/core's
 * OIDC client with undici) would cost every step to read and scan for code only a few run.
 */
const EMBED_LIMIT = 100_000;

/**
 * The chunks' code goes into the one file as strings, compiled only when a dynamic import asks for
 * one (the contract's zod schemas, the JUnit reader): V8 scans a string literal far faster than it
 * pre-parses the same code, and a normal step runs neither. The loader hands the chunk the same
 * `exports`, `require`, `module` a chunk file would get from Node.
 */
function embedChunks(code, chunks) {
  if (code.split(CHUNK_FILE_LOAD).length !== 2) {
    throw new Error(`ncc's chunk loader changed: expected ${CHUNK_FILE_LOAD} once in the bundle`);
  }
  const prelude =
    `var __ciStatsChunks=${JSON.stringify(chunks)};` +
    'function __ciStatsChunk(id){var m={exports:{}};' +
    'new Function("exports","require","module","__filename","__dirname",__ciStatsChunks[id])' +
    '(m.exports,require,m,__filename,__dirname);return m.exports}\n';
  // A chunk not in the table is a file beside the bundle, loaded as webpack would.
  return (
    prelude +
    code.replace(
      CHUNK_FILE_LOAD,
      `(Object.hasOwn(__ciStatsChunks,t)?__ciStatsChunk(t):${CHUNK_FILE_LOAD})`,
    )
  );
}

/**
 * The licenses of the packages bundled, main file and chunks, in the form ncc's `license` option
 * writes (name, licence, its text). That option writes one file per chunk under the same name, so
 * with chunks the last one would win.
 */
function licenses(stats) {
  // Package name -> its directory and licence; each package.json read once.
  const packages = new Map();
  const read = new Set();
  // A module webpack concatenated with others has no file of its own: its parts do.
  const parts = [...stats.compilation.modules].flatMap((m) => (m.modules ? [...m.modules] : [m]));
  for (const { resource } of parts) {
    const dir = /^(.*node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)/.exec(resource ?? '')?.[1];
    if (!dir || read.has(dir)) continue;
    read.add(dir);
    const { name, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    packages.set(name, { dir, license });
  }
  return [...packages]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, { dir, license }]) => {
      const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
      if (!file) throw new Error(`${name}: no licence file to bundle`);
      return `${name}\n${license}\n${readFileSync(join(dir, file), 'utf8').trim()}\n`;
    })
    .join('\n\n');
}

/**
 * CommonJS output (`esm: false`; the CLI's `ncc build` has no such switch): Node starts a
 * CommonJS main file without its ES module loader, which costs a reporting step ≈ 8 ms
 * (BENCHMARKS.md, "Reporting step time"). dist/package.json says so to Node. ncc minifies the
 * main file only, so the chunks go through terser here.
 */
async function build(entry, file, licenseFile, { shebang = false, oneFile = false } = {}) {
  const { code, assets, stats } = await ncc(resolve(entry), {
    esm: false,
    minify: true,
    sourceMapRegister: false,
    quiet: true,
  });
  const chunks = {};
  for (const [name, asset] of Object.entries(assets)) {
    const id = CHUNK_FILE.exec(name)?.[1];
    if (id === undefined) continue;
    const minified = (await minify(asset.source.toString(), { compress: true, mangle: true })).code;
    if (oneFile || minified.length <= EMBED_LIMIT) chunks[id] = minified;
    else writeFileSync(`dist/${name}`, minified);
  }
  const body = embedChunks(code.replace(/^#!.*\n/, ''), chunks);
  writeFileSync(`dist/${file}`, shebang ? `#!/usr/bin/env node\n${body}` : body);
  writeFileSync(`dist/${licenseFile}`, licenses(stats));
}

/**
 * dist/ is also the CLI's npm package: its package.json names the one file and nothing else, so
 * `npm pack ./dist` gives a tarball that installs in seconds, with no dependency and nothing to
 * compile (the Action's dist/index.js beside it is left out by `files`). The version is the
 * repository's; `type: commonjs` tells Node how to load both bundles.
 */
function cliPackage() {
  const root = JSON.parse(readFileSync('package.json', 'utf8'));
  return {
    name: 'ci-stats',
    version: root.version,
    description:
      'Report CI build events, metrics and JUnit test results to a ci-stats server from any CI: one file, no dependency.',
    keywords: ['ci', 'metrics', 'junit', 'build', 'statistics'],
    type: 'commonjs',
    bin: { 'ci-stats': 'cli.js' },
    files: ['cli.js', 'cli-licenses.txt', 'README.md'],
    engines: root.engines,
  };
}

mkdirSync('dist', { recursive: true });
// Chunk files of an earlier build (their ids change with their contents).
for (const name of readdirSync('dist')) if (CHUNK_FILE.test(name)) rmSync(`dist/${name}`);
writeFileSync('dist/package.json', `${JSON.stringify(cliPackage(), null, 2)}\n`);
copyFileSync('cli/README.md', 'dist/README.md');
await build('action/index.ts', 'index.js', 'licenses.txt');
// The CLI stays one file, whatever the size of its chunks: its package is that file.
await build('cli/index.ts', 'cli.js', 'cli-licenses.txt', { shebang: true, oneFile: true });
chmodSync('dist/cli.js', 0o755);
