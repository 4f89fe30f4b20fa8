import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { VERSION } from '../../cli/version.js';
import { run } from '../helpers/process.js';
import { tempDir } from '../helpers/server.js';

/**
 * The CLI's own package (dist/, whose package.json the bundle writes): `npm pack ./dist`, then
 * `npm install -g` of the tarball into an empty prefix with the network off (an empty cache and
 * a registry that refuses every connection): one file, no dependency, a working ci-stats.
 */

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('the CLI package installs offline, alone, and reports', async () => {
  execFileSync('npm', ['pack', './dist', '--silent', '--pack-destination', dir], {
    stdio: 'pipe',
  });
  const [tarball] = readdirSync(dir).filter((name) => name.endsWith('.tgz'));
  expect(tarball).toBe(`ci-stats-${VERSION}.tgz`);
  const files = execFileSync('tar', ['tzf', join(dir, tarball as string)], { encoding: 'utf8' });
  expect(files.trim().split('\n').sort()).toEqual([
    'package/README.md',
    'package/cli-licenses.txt',
    'package/cli.js',
    'package/package.json',
  ]);
  const manifest = JSON.parse(readFileSync('dist/package.json', 'utf8'));
  expect(manifest).toMatchObject({
    name: 'ci-stats',
    version: VERSION,
    bin: { 'ci-stats': 'cli.js' },
  });
  expect(manifest.dependencies).toBeUndefined();

  const prefix = join(dir, 'prefix');
  const cache = join(dir, 'empty-cache');
  mkdirSync(cache);
  // Port 9 (discard) refuses at once: any fetch from a registry fails the install.
  const offline = { npm_config_registry: 'http://127.0.0.1:9/', npm_config_cache: cache };
  execFileSync(
    'npm',
    ['install', '--global', '--offline', '--prefix', prefix, '--no-audit', '--no-fund'].concat([
      join(dir, tarball as string),
    ]),
    { stdio: 'pipe', env: { ...process.env, ...offline } },
  );
  // Nothing but the command itself was installed.
  expect(readdirSync(join(prefix, 'lib', 'node_modules'))).toEqual(['ci-stats']);
  expect(readdirSync(join(prefix, 'lib', 'node_modules', 'ci-stats')).sort()).toEqual([
    'README.md',
    'cli-licenses.txt',
    'cli.js',
    'package.json',
  ]);
  const bin = join(prefix, 'bin', 'ci-stats');
  expect(execFileSync(bin, ['--version'], { encoding: 'utf8' })).toBe(`${VERSION}\n`);

  // The installed command really reports: a dry run validates and prints, from another directory.
  const dry = await run(
    [bin, 'report', '--event-type', 'build', '--metrics', '{"a":1}', '--dry-run'],
    {
      CI_STATS_API_KEY: 'k',
      CI_STATS_BASE_URL: 'https://stats.example.com',
      CI_STATS_PROJECT_ID: 'p',
    },
  );
  expect(dry.stderr).toBe('');
  expect(dry.code).toBe(0);
  expect(dry.stdout).toContain('dry run: 2 request(s) validated, nothing sent');
}, 180_000);
