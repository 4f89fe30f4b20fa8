import { describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import { rebuildStaleChangePoints } from '../../server/services/verdicts/change-point-update.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Change points follow a series in time order (docs/verdicts.md, Change points): history
 * imported after newer records is analysed before them, not appended after them, and the rebuild
 * this takes, cut into turns, finds what one pass finds. Both backends.
 */

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started));

const DAY = 86_400_000;
/** Values per level: three levels, 100 → 150 → 200 in time order, with a small wobble. */
const PER_LEVEL = 30;
const wobble = (i: number) => ((i * 7) % 5) - 2;

interface Point {
  record_id: string;
  p_value: number;
  after_mean: number;
  before_mean: number;
  at: string;
}

const changePoints = async (): Promise<Point[]> => {
  const res = await server.call(
    'GET',
    `${VerdictPaths.getChangePoints}?projectId=${me.projectId}&key=t`,
    { key: me.apiKey },
  );
  expect(res.statusCode, res.body).toBe(200);
  return res.json().change_points;
};

/** The newest level reported live; then the two older levels imported with their past dates. */
async function liveThenImported(): Promise<{ imported: string[]; live: string[] }> {
  const live: string[] = [];
  for (let i = 0; i < PER_LEVEL; i += 1) {
    const res = await server.call('POST', Paths.ingestMetrics, {
      key: me.apiKey,
      body: { projectId: me.projectId, payload: { t: 200 + wobble(i), ci: { branch: 'main' } } },
    });
    expect(res.statusCode, res.body).toBe(200);
    live.push(res.json().id);
  }
  // Judged (and their change-point state stored) before the history arrives.
  expect(await changePoints()).toEqual([]);
  const start = Date.now() - 100 * DAY;
  const imported = Array.from({ length: 2 * PER_LEVEL }, (_, i) => `h${i}`);
  const lines = imported.map((id, i) =>
    JSON.stringify({
      id,
      created_at: new Date(start + i * DAY).toISOString(),
      payload: { t: (i < PER_LEVEL ? 100 : 150) + wobble(i), ci: { branch: 'main' } },
    }),
  );
  const res = await server.call('POST', `/stats/import-records?projectId=${me.projectId}`, {
    key: me.apiKey,
    headers: { 'content-type': 'application/x-ndjson' },
    body: ['{"format":"ci-stats-records","version":1,"kind":"metrics"}', ...lines].join('\n'),
  });
  expect(res.json()).toMatchObject({ imported: 2 * PER_LEVEL, skipped: 0 });
  return { imported, live };
}

/** The two steps up, each within ±2 values of where it is in time order. */
function expectStepsInTimeOrder(points: Point[], ids: { imported: string[]; live: string[] }) {
  const series = [...ids.imported, ...ids.live];
  expect(points.map((p) => Math.abs(series.indexOf(p.record_id) - PER_LEVEL) <= 2)).toEqual([
    true,
    false,
  ]);
  expect(Math.abs(series.indexOf((points[1] as Point).record_id) - 2 * PER_LEVEL)).toBeLessThan(3);
  for (const point of points) expect(point.after_mean / point.before_mean).toBeGreaterThan(1.25);
  expect(points.map((p) => p.at)).toEqual(points.map((p) => p.at).sort());
}

describe('change points in time order', () => {
  it('analyses imported history before the newer records it arrived after', async () => {
    const ids = await liveThenImported();
    // The series is rebuilt in the background once the import is judged.
    await expect.poll(async () => (await changePoints()).length, { timeout: 20_000 }).toBe(2);
    expectStepsInTimeOrder(await changePoints(), ids);
  });

  it('a rebuild cut into turns of a few values finds what one pass finds', async () => {
    const ids = await liveThenImported();
    await expect.poll(async () => (await changePoints()).length, { timeout: 20_000 }).toBe(2);
    const whole = await changePoints();
    // Stale again, rebuilt 7 values a turn, each turn its own transaction; under the judging's
    // lock throughout, so that the worker takes no turn of its own.
    const storage = server.app.storage;
    const turns = await storage.lock('verdicts', async () => {
      await storage.verdicts.markChangePointsStale(me.projectId, 't');
      let taken = 0;
      while ((await storage.transaction((tx) => rebuildStaleChangePoints(tx, 7))) > 0) taken += 1;
      return taken;
    });
    expect(turns).toBe(Math.ceil((3 * PER_LEVEL) / 7));
    // The same points and levels; a p-value is that of the window its last detection saw, which
    // depends on how the values were fed, so it is only required to be significant.
    const withoutP = (points: Point[]) => points.map(({ p_value: _, ...rest }) => rest);
    const cut = await changePoints();
    expect(withoutP(cut)).toEqual(withoutP(whole));
    for (const point of cut) expect(point.p_value).toBeLessThanOrEqual(0.01);
    expectStepsInTimeOrder(whole, ids);
  });
});
