import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

/** Compiles the server to build/ so tests can start it the way `npm start` does. */
export default function setup(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
