// `npm start`, `npm run admin` (and `npm run docs:openapi`): compile only when a source is newer than build/, then run the
// program in this very process. No child process: the signals npm forwards (SIGTERM, SIGINT)
// reach the server itself, and nothing is left running when this process ends.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIfStale } from './build-state.js';

const PROGRAMS = {
  server: join('build', 'server', 'main.js'),
  admin: join('build', 'server', 'admin-cli.js'),
  openapi: join('build', 'server', 'write-openapi.js'),
};

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [name, ...args] = process.argv.slice(2);
const program = PROGRAMS[name];
if (program === undefined && name !== 'build') {
  process.stderr.write(
    `usage: node scripts/start.js build|${Object.keys(PROGRAMS).join('|')} [args]\n`,
  );
  process.exit(2);
}
try {
  // `npm run build` compiles whatever the stamp says (tsc itself skips what did not change).
  buildIfStale(root, { force: name === 'build', log: name === 'build' ? () => {} : undefined });
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(error.exitCode ?? 1);
}
if (program === undefined) process.exit(0);
// The program reads its arguments as if it had been started itself.
const entry = join(root, program);
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(entry).href);
