import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAction, runnerEnv } from '../helpers/action.js';
import { runCli } from '../helpers/cli.js';

/**
 * The bundles keep zod (the contract's schemas) and the JUnit reader as strings compiled on first
 * use (scripts/bundle.js): a normal step must compile neither, and the paths that need them must
 * still work. A preload names every chunk compiled.
 */

const PRELOAD = `--require ${resolve('test/cli/fixtures/count-chunks.cjs')}`;
const settings = {
  CI_STATS_API_KEY: 'lazy-chunks-test-key',
  CI_STATS_BASE_URL: 'http://127.0.0.1:9',
  CI_STATS_PROJECT_ID: 'p',
  NODE_OPTIONS: PRELOAD,
};
const compiled = (stderr: string) => [...stderr.matchAll(/^compiled chunk (\d+)$/gm)].length;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ci-stats-chunks-'));
  writeFileSync(
    join(dir, 'report.xml'),
    '<testsuite name="s" tests="2"><testcase name="a"/><testcase name="b"><failure message="no"/></testcase></testsuite>',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A bundle's code outside its chunk table: what every step compiles. */
function mainCode(file: string): { main: string; chunks: string[] } {
  const text = readFileSync(file, 'utf8').replace(/^#!.*\n/, '');
  const table = /^var __ciStatsChunks=(\{.*?\});function __ciStatsChunk/s.exec(text);
  if (!table) throw new Error(`${file}: no chunk table at its start`);
  return {
    main: text.slice(table[0].length),
    chunks: Object.values(JSON.parse(table[1] as string) as Record<string, string>),
  };
}

describe('chunks compiled on first use', () => {
  // zod's internals all go through a `_zod` property: one import of zod's module (not a type)
  // from the code every step runs pulls all of zod into it, chunks or not (it did: contract/
  // text-rule.ts, through the ingest pre-check, until its NUL helpers moved to contract/nul.ts).
  it.each(['dist/index.js', 'dist/cli.js'])('%s keeps zod out of its main code', (file) => {
    const { main, chunks } = mainCode(file);
    // (a boolean: a failure should not print the whole bundle)
    expect(main.includes('_zod')).toBe(false);
    expect(chunks.some((chunk) => chunk.includes('_zod'))).toBe(true);
  });

  it('a valid event and metric compile no chunk, in the CLI and in the Action', async () => {
    const cli = await runCli(
      ['report', '--event-type', 'build', '--metrics', '{"duration_ms": 5}', '--dry-run'],
      settings,
    );
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain('2 request(s) validated');
    expect(compiled(cli.stderr)).toBe(0);

    const action = await runAction(
      {
        'api-key': 'lazy-chunks-test-key',
        'base-url': 'http://127.0.0.1:9',
        'project-id': 'p',
        'event-type': 'build',
        metrics: '{"duration_ms": 5}',
        'dry-run': 'true',
      },
      runnerEnv('push', { NODE_OPTIONS: PRELOAD }),
    );
    expect(action.code).toBe(0);
    expect(compiled(action.stderr)).toBe(0);
  });

  it('JUnit reports compile the reader, and it counts them', async () => {
    const run = await runCli(
      ['report', '--event-type', 'build', '--junit', join(dir, '*.xml'), '--dry-run'],
      settings,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('1 JUnit report(s): 2 tests, 1 failed, 0 errors, 0 skipped');
    expect(compiled(run.stderr)).toBeGreaterThan(0);
  });

  it('a body the quick check does not accept compiles the schemas, whose verdict is given', async () => {
    let deep = '1';
    for (let i = 0; i < 70; i++) deep = `{"a":${deep}}`;
    const run = await runCli(
      ['report', '--event-type', 'build', '--payload', deep, '--dry-run'],
      settings,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('ci-stats report: --payload: must be a JSON object');
    expect(compiled(run.stderr)).toBeGreaterThan(0);
  });
});
