import { describe, expect, it } from 'vitest';
import { FormClient } from '../helpers/form-client.js';
import { storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * The project page's key table under the branch filter the header announces (issue 28, rough
 * edge 4): with a branch, each key's records, last value and time are those of that branch in
 * the range, checked against figures computed here from what was seeded; without one, every
 * branch and all time, as before. Its CSV gives the same figures.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Point {
  at: number;
  branch: string;
  key: string;
  value: number;
}

/** The key table's CSV as key → [records, last_value, last_at]. */
async function keysCsv(browser: FormClient, query: string) {
  const res = await browser.get(
    `/dashboard/projects/${me.projectId}/export.csv?${query}&table=keys`,
  );
  expect(res.statusCode).toBe(200);
  const [header, ...lines] = res.body.trim().split('\r\n');
  expect(header).toBe('key,records,last_value,last_at,unit,direction');
  return new Map(
    lines.map((line) => {
      const [key, records, last, at] = line.split(',');
      return [key as string, [records, last, at]];
    }),
  );
}

describe('the key table and the branch filter', () => {
  it('gives each key’s records and last value on the branch in the range, and says so', async () => {
    const now = Date.now();
    // An older record on main, outside a 7-day range (but in the all-time figures); stored first
    // (a record is never stored before the last one).
    const points: Point[] = [{ at: now - 20 * DAY, branch: 'main', key: 'size', value: 999 }];
    let value = 1;
    // Two keys on main and feature over the last six days; `only_feature` never on main.
    for (let i = 0; i < 24; i++) {
      const at = now - 6 * DAY + i * 5 * HOUR;
      const branch = i % 3 === 0 ? 'feature' : 'main';
      for (const key of ['size', ...(branch === 'feature' ? ['only_feature'] : [])]) {
        points.push({ at, branch, key, value: value++ });
      }
    }
    for (const p of points) {
      await storeMetric(server, me.projectId, p.at, { [p.key]: p.value, ci: { branch: p.branch } });
    }

    const expected = (of: Point[]) => {
      const out = new Map<string, string[]>();
      for (const key of ['only_feature', 'size']) {
        const mine = of.filter((p) => p.key === key).sort((a, b) => a.at - b.at);
        const last = mine.at(-1);
        out.set(key, [
          String(mine.length),
          last === undefined ? '' : String(last.value),
          last === undefined ? '' : new Date(last.at).toISOString(),
        ]);
      }
      return out;
    };
    const from = now - 7 * DAY;

    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const onMain = await browser.get(`/dashboard/projects/${me.projectId}?range=7d&branch=main`);
    expect(onMain.statusCode).toBe(200);
    expect(onMain.body).toMatch(
      /data-keys-scope[^>]*>[^<]*on branch <code>main<\/code> in the range/,
    );
    expect(await keysCsv(browser, 'range=7d&branch=main')).toEqual(
      expected(points.filter((p) => p.branch === 'main' && p.at >= from)),
    );
    // The page's rows: a key without a record on the branch shows 0 and no last value.
    const row = /<tr><td><code>only_feature<\/code><\/td><td>([^<]*)<\/td><td>([^<]*)<\/td>/.exec(
      onMain.body,
    );
    expect(row?.slice(1)).toEqual(['0', '–']);

    expect(await keysCsv(browser, 'range=7d&branch=feature')).toEqual(
      expected(points.filter((p) => p.branch === 'feature' && p.at >= from)),
    );
    // Without a branch: every branch, all time (the stored key list).
    const all = await browser.get(`/dashboard/projects/${me.projectId}?range=7d`);
    expect(all.body).toMatch(/data-keys-scope[^>]*>[^<]*over every branch and all time/);
    expect(await keysCsv(browser, 'range=7d')).toEqual(expected(points));
  });
});
