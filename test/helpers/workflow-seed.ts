import { expect } from 'vitest';
import { FormClient } from './form-client.js';
import type { TestServer } from './server.js';

/**
 * Records of two workflows (and of none) stored before the workflow cells existed, for the
 * migrations' tests: `count` runs an hour apart from `base`, as rows of events and metrics.
 */
export function workflowRuns(base: number, count: number, first = 0) {
  return Array.from({ length: count }, (_, n) => {
    const i = first + n;
    const workflow = ['CI' as string | null, 'Release', null][i % 3] ?? null;
    const status = i % 5 === 0 ? 'failure' : 'success';
    const branch = i % 4 === 0 ? 'dev' : 'main';
    const github =
      workflow === null
        ? { ref: `refs/heads/${branch}` }
        : { workflow, ref: `refs/heads/${branch}` };
    return {
      i,
      at: base + i * 3_600_000,
      workflow,
      status,
      branch,
      duration: 60_000 + ((i * 7919) % 50_000),
      event: JSON.stringify({ status, github }),
      metric: JSON.stringify({ duration_ms: 60_000 + ((i * 7919) % 50_000), github }),
    };
  });
}

/**
 * The headline of workflow CI over the days `from` to `to` (whole UTC days), as the owner's CSV
 * gives it, against the figures computed here from `runs`.
 */
export async function expectWorkflowHeadline(
  server: TestServer,
  apiKey: string,
  projectId: string,
  runs: ReturnType<typeof workflowRuns>,
  days: { from: string; to: string },
) {
  const browser = new FormClient(server);
  await browser.signIn(apiKey);
  const res = await browser.get(
    `/dashboard/projects/${projectId}/export.csv?table=headline&range=custom&from=${days.from}&to=${days.to}&workflow=CI`,
  );
  expect(res.statusCode, res.body).toBe(200);
  const [head, ...rows] = res.body
    .trimEnd()
    .split('\r\n')
    .map((line) => line.split(','));
  const figure = (name: string) => {
    const row = rows.find((r) => r[0] === name) as string[];
    return Object.fromEntries((head as string[]).map((h, i) => [h, row[i]]));
  };
  const ci = runs.filter((r) => r.workflow === 'CI');
  const success = ci.filter((r) => r.status === 'success').length;
  const failure = ci.filter((r) => r.status === 'failure').length;
  const sorted = ci.map((r) => r.duration).sort((a, b) => a - b);
  const p50 = sorted[Math.ceil(sorted.length / 2) - 1] as number;
  expect(Number(figure('builds').value)).toBe(ci.length);
  expect(Number(figure('success_rate').value)).toBeCloseTo(success / (success + failure), 12);
  expect(Math.abs(Number(figure('duration_p50').value) - p50)).toBeLessThanOrEqual(p50 * 0.02);
}
