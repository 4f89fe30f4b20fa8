import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { VERSION } from '../../cli/version.js';
import { run } from '../helpers/process.js';
import { tempDir } from '../helpers/server.js';

/** `npm pack`, then `npm install -g` of the tarball into a temporary prefix: a working ci-stats. */

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('the packed package installs a ci-stats command', async () => {
  execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { stdio: 'pipe' });
  const [tarball] = readdirSync(dir).filter((name) => name.endsWith('.tgz'));
  expect(tarball).toBe(`ci-stats-${VERSION}.tgz`);
  const files = execFileSync('tar', ['tzf', join(dir, tarball as string)], { encoding: 'utf8' });
  expect(files).toContain('package/dist/cli.js');

  const prefix = join(dir, 'prefix');
  execFileSync(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
    ].concat(['--prefer-offline', join(dir, tarball as string)]),
    { stdio: 'pipe' },
  );
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
