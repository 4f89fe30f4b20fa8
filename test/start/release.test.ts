import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { capture } from '../helpers/process.js';
import { tempDir } from '../helpers/server.js';

/**
 * `npm run release`: the server's archive holds the compiled server and no TypeScript, and,
 * installed, starts without compiling and serves its manual; the CLI's tarball and the checksums
 * sit beside it.
 */

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('the server archive starts without compiling, its manual included', async () => {
  const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
  execFileSync(process.execPath, ['scripts/release.js', '--out', dir], { stdio: 'pipe' });
  const name = `ci-stats-server-${version}`;
  expect(readdirSync(dir).sort()).toEqual(
    [`${name}.tar.gz`, `ci-stats-${version}.tgz`, 'SHA256SUMS'].sort(),
  );
  const sums = execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dir, encoding: 'utf8' });
  expect(sums).toContain(`${name}.tar.gz: OK`);

  const files = execFileSync('tar', ['-tzf', join(dir, `${name}.tar.gz`)], { encoding: 'utf8' })
    .trim()
    .split('\n');
  for (const file of [
    'build/server/main.js',
    'build/server/admin-cli.js',
    'scripts/start.js',
    'package-lock.json',
    'deploy/ci-stats.service',
    'docs/README.md',
    'CHANGELOG.md',
  ]) {
    expect(files).toContain(`${name}/${file}`);
  }
  expect(files.filter((file) => /\.tsx?$/.test(file))).toEqual([]);

  // Installed: extracted, with the dependencies `npm ci --omit=dev` would give (this checkout's).
  execFileSync('tar', ['-xzf', join(dir, `${name}.tar.gz`), '-C', dir]);
  const home = join(dir, name);
  symlinkSync(resolve('node_modules'), join(home, 'node_modules'));
  const child = spawn(process.execPath, ['scripts/start.js', 'server'], {
    cwd: home,
    env: {
      PATH: process.env.PATH,
      DATABASE_PATH: join(dir, 'stats.db'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = capture(child);
  try {
    const url = await new Promise<string>((done, fail) => {
      child.stdout?.on('data', () => {
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output());
        if (match?.[1]) done(match[1]);
      });
      child.once('exit', (code) => fail(new Error(`exited with ${code}:\n${output()}`)));
    });
    expect(output()).not.toContain('Compiling');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const manual = await fetch(`${url}/docs/operations`);
    expect(manual.status).toBe(200);
    expect(await manual.text()).toContain('<h1 id="operations">Operations</h1>');
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
}, 120_000);
