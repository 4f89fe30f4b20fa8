import { describe, expect, it } from 'vitest';
import { reportCommand } from '../../cli/report-command.js';
import { comparedKey, comparisonOf } from '../helpers/comparisons.js';
import { FakeTransport } from '../helpers/fake-transport.js';

/**
 * `ci-stats report --compare` in process: a fake transport answers for the server (the metric
 * stored, then GET /stats/compare); the table is checked as printed.
 */

const env = {
  CI_STATS_API_KEY: 'cis_secret_key',
  CI_STATS_BASE_URL: 'https://stats.example',
  CI_STATS_PROJECT_ID: 'p1',
};
const regression = comparisonOf([
  comparedKey('bundle_bytes', { value: 5000, baseline: 5000, unit: 'bytes' }),
  comparedKey('duration_ms', { value: 1500, verdict: 'regression', change: 0.5, baseline: 1000 }),
]);

async function cli(args: string[], colour = false) {
  const out: string[] = [];
  const err: string[] = [];
  const transport = new FakeTransport().answer(
    { status: 200, body: '{"message":"ok","id":"m1"}' },
    { status: 200, body: JSON.stringify(regression) },
  );
  const { code } = await reportCommand(
    ['--metrics', '{"duration_ms": 1500}', '--retries', '0', ...args],
    transport,
    { out: (t) => out.push(t), err: (t) => err.push(t), colour },
    env,
  );
  return { code, out: out.join('\n'), err: err.join('\n'), transport };
}

describe('ci-stats report --compare', () => {
  it('prints the verdict as an aligned table, regressions first, plain when not a terminal', async () => {
    const { code, out, transport } = await cli(['--compare']);
    expect(code).toBe(0);
    expect(transport.sent[1]?.url).toBe(
      'https://stats.example/stats/compare?projectId=p1&record=m1',
    );
    const lines = out.split('\n');
    expect(lines).toContain('ci-stats verdict for p1: ❌ 1 regression');
    expect(lines).toContain('compared with main at 222222222222');
    const table = lines.slice(lines.indexOf('') + 1, lines.indexOf('') + 4);
    expect(table).toEqual([
      'key           unit    base   this   change  verdict       test and limit',
      'duration_ms   ms     1,000  1,500  +50.0 %  ❌ regression  t_test ≤ 120 (n = 64)',
      'bundle_bytes  bytes  5,000  5,000    0.0 %  ok            t_test ≤ 120 (n = 64)',
    ]);
    expect(out).not.toContain('\u001b[');
  });

  it('colours the rows on a terminal', async () => {
    const { out } = await cli(['--compare'], true);
    expect(out).toContain('\u001b[31mduration_ms');
  });

  it('--fail-on-regression exits 1 on a regression; --json carries the verdict', async () => {
    const failing = await cli(['--fail-on-regression']);
    expect(failing.code).toBe(1);
    expect(failing.err).toContain('error: 1 regression(s), and --fail-on-regression');
    const json = await cli(['--compare', '--json']);
    expect(json.code).toBe(0);
    const object = JSON.parse(json.out);
    expect(object.verdict).toEqual(regression);
    expect(object.ok).toBe(true);
  });

  it('without --compare nothing is asked of /stats/compare', async () => {
    const { transport, out } = await cli([]);
    expect(transport.sent.map((r) => r.method)).toEqual(['POST']);
    expect(out).not.toContain('verdict');
  });
});
