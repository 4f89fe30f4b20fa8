import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { markBuilt, staleReason } from '../../scripts/build-state.js';
import { tempDir } from '../helpers/server.js';

/** When `npm start` compiles: only when a source is newer than the last compilation. */

let root: string;
beforeEach(() => {
  root = tempDir();
  mkdirSync(join(root, 'build', 'server'), { recursive: true });
  mkdirSync(join(root, 'server', 'http'), { recursive: true });
  writeFileSync(join(root, 'server', 'http', 'app.ts'), 'export {};\n');
  writeFileSync(join(root, 'tsconfig.json'), '{}\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const age = (path: string, secondsAgo: number) => {
  const time = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(join(root, path), time, time);
};

it('nothing built, or built before the stamp existed: compile', () => {
  expect(staleReason(root)).toBe('nothing is built yet');
  writeFileSync(join(root, 'build', 'server', 'main.js'), '');
  expect(staleReason(root)).toBe('build/ predates this start script');
});

it('up to date after a compilation; a source or a setting saved since makes it stale', () => {
  writeFileSync(join(root, 'build', 'server', 'main.js'), '');
  age('server/http/app.ts', 60);
  age('tsconfig.json', 60);
  markBuilt(root, new Date(Date.now() - 30_000));
  expect(staleReason(root)).toBeUndefined();
  age('server/http/app.ts', 10);
  expect(staleReason(root)).toBe(`${join(root, 'server', 'http', 'app.ts')} changed`);
  age('server/http/app.ts', 60);
  age('tsconfig.json', 10);
  expect(staleReason(root)).toBe(`${join(root, 'tsconfig.json')} changed`);
});

it('a release archive (a build and no sources) never compiles', () => {
  writeFileSync(join(root, 'build', 'server', 'main.js'), '');
  rmSync(join(root, 'server'), { recursive: true });
  expect(staleReason(root)).toBeUndefined();
});
