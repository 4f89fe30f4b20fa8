import { expect } from 'vitest';

/**
 * A default branch's history of a build duration (lower is better, in ms) around 100 ms, sent
 * through E8 to a server process: what the reporters' verdict tests compare a run with. `context`
 * gives each record's branch and commit as its CI would (`ci` or `github` facts).
 */
export async function seedDurationHistory(
  serverUrl: string,
  apiKey: string,
  projectId: string,
  context: (i: number) => Record<string, unknown>,
  records = 12,
): Promise<void> {
  for (let i = 0; i < records; i++) {
    const response = await fetch(`${serverUrl}/stats/ingest-metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({
        projectId,
        payload: {
          duration_ms: 100 + (i % 3),
          units: { duration_ms: 'ms' },
          directions: { duration_ms: 'lower' },
          ...context(i),
        },
      }),
    });
    expect(response.status).toBe(200);
  }
}
