import { describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import type { BuildSummary, MetricSeries } from '../../contract/stats-queries.js';
import { seriesBuckets, summaryBuckets, valuePart } from '../../server/domain/bucket-aggregates.js';
import { newRecordId } from '../../server/domain/ids.js';
import { branchOf, seriesOf, statusClass } from '../../server/domain/record-facts.js';
import { readPlan } from '../../server/domain/time-buckets.js';
import { storeEvent } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Payloads where a database reading the key itself could answer otherwise than the records read
 * one by one in JavaScript (PostgreSQL sums in SQL, storage/postgres/pg-series.ts): dotted names
 * and nested objects giving the same key, duplicate names, arrays, strings, escapes, non-finite,
 * tiny and huge numbers, fractions, sums past 2^53, values on sketch bin edges, more leaves than
 * a record keeps; at bucket edges that are not whole minutes, with and without a branch. The
 * answer must be exactly the records' (every bit), on both backends.
 */

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started));

const BASE = Date.parse('2026-11-03T00:00:00.000Z');
const HOUR = 3_600_000;
const GAMMA = 1.02 / 0.98;
const iso = (ms: number) => new Date(ms).toISOString();

const get = async <T>(path: string, query: Record<string, string | number>) => {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await server.call('GET', `${path}?${params}`, { key: me.apiKey });
  expect(res.statusCode).toBe(200);
  return res.json() as T;
};

/** A metric stored with its payload's text as given (the ingest path's other fields from it). */
async function storeText(t: number, text: string) {
  const payload = JSON.parse(text) as Record<string, unknown>;
  await server.app.storage.records.append({
    kind: 'metric',
    row: {
      id: newRecordId(),
      projectId: me.projectId,
      payload: text,
      createdAt: t,
      branch: branchOf(payload),
    },
    series: seriesOf(payload),
  });
}

const many = Array.from({ length: 150 }, (_, i) => `"k${i}":${i}`).join(',');
const PAYLOADS = [
  '{"a.b":1,"a":{"b":2}}',
  '{"a":{"b":3},"ci":{"branch":"main"}}',
  '{"a.b":4,"ci":{"branch":"main"}}',
  '{"a":{"b":"5"},"v":"5"}',
  '{"a":{"b":true},"v":null}',
  '{"a":[{"b":6}],"v":[7]}',
  '{"a":{"b":7},"a":{"c":8}}',
  '{"a":{"b":1e400},"v":-1e400}',
  '{"a":{"b":-0},"v":-0}',
  '{"a":{"b":1e-310},"v":1e-320}',
  '{"a":{"b":1e300},"v":-1e300}',
  '{"a":{"b":2.5},"v":0.1}',
  '{"a":{"b":0.2},"v":0.2,"ci":{"branch":"main"}}',
  '{"a":{"b":0.3},"v":0.3}',
  '{"a":{"b":9007199254740991},"v":9007199254740991}',
  '{"a":{"b":12},"v":2,"s":"\\u0000\\ud800x"}',
  `{${many},"a":{"b":13},"v":13}`,
  '{"a":{"0":{"b":15}},"v":1}',
  `{"a":{"b":${GAMMA ** 5}},"v":${GAMMA ** -7}}`,
  `{"a":{"b":${(2 * GAMMA ** 9) / (GAMMA + 1)}},"v":${-(GAMMA ** 3)}}`,
  '{"a":{"b":-4},"v":-4,"ci":{"branch":"main"}}',
  '{"a":{"b":0},"v":0,"ci":{"branch":"main"}}',
  '{"a":{"b":1.5e3},"v":1E2}',
  '{"x":{"y":{"z":{"w":{"q":9}}}},"x.y":{"z.w":{"q":10}}}',
];

/** The buckets as the records give them one by one, through JSON as the API answers. */
function fromRecords(
  stored: [number, string][],
  key: string,
  from: number,
  to: number,
  count: number,
  branch?: string,
) {
  const plan = readPlan(from, to, count);
  const parts = stored.flatMap(([t, text]) => {
    const payload = JSON.parse(text) as Record<string, unknown>;
    const bucket = plan.buckets.find((b) => b.start <= t && t < b.end);
    if (!bucket || (branch !== undefined && branchOf(payload) !== branch)) return [];
    return seriesOf(payload)
      .filter(([name]) => name === key)
      .map(([, value]) => valuePart(bucket.index, t, value));
  });
  return JSON.parse(JSON.stringify(seriesBuckets(plan, parts)));
}

describe('statistics read by the database: the same answers as the records', () => {
  it('series of odd payloads, at bucket edges that are not whole minutes, with a branch', async () => {
    const from = BASE + 17_123;
    const to = BASE + 3 * HOUR + 5_555;
    const plan = readPlan(from, to, 7);
    // Times on every bucket's first and last millisecond, and around the range.
    const times = [from - 1, to, ...plan.buckets.flatMap((b) => [b.start, b.end - 1, b.start + 1])];
    const stored: [number, string][] = [];
    for (let i = 0; i < times.length * 2; i++) {
      stored.push([times[i % times.length] as number, PAYLOADS[i % PAYLOADS.length] as string]);
    }
    // Stored as they would arrive: in time order (a record's time never goes back).
    stored.sort(([a], [b]) => a - b);
    for (const [t, text] of stored) await storeText(t, text);
    for (const key of ['a.b', 'v', 'a.0.b', 'x.y.z.w.q', 'k120', 'k3']) {
      for (const branch of [undefined, 'main']) {
        for (const count of [7, 200]) {
          const query = {
            projectId: me.projectId,
            key,
            from: iso(from),
            to: iso(to),
            buckets: count,
          };
          const series = await get<MetricSeries>(Paths.getMetricSeries, {
            ...query,
            ...(branch === undefined ? {} : { branch }),
          });
          expect(series.buckets, `${key} ${branch} ${count}`).toEqual(
            fromRecords(stored, key, from, to, count, branch),
          );
        }
      }
    }
  });

  it('build summaries at bucket edges: statuses, no status, event types, branches', async () => {
    const from = BASE + 7_777;
    const to = BASE + 2 * HOUR + 1;
    const plan = readPlan(from, to, 9);
    const times = [from - 1, to, ...plan.buckets.flatMap((b) => [b.start, b.end - 1])];
    const statuses = ['success', 'failure', 'cancelled', 'Success', 'skipped', '', null];
    const stored: { t: number; type: string; status: string | null; branch: string | null }[] = [];
    for (let i = 0; i < times.length * 3; i++) {
      const status = statuses[i % statuses.length] as string | null;
      stored.push({
        t: times[i % times.length] as number,
        type: i % 3 === 0 ? 'deploy' : 'build',
        status: status === '' ? null : status,
        branch: i % 2 === 0 ? 'main' : null,
      });
    }
    // In time order, as they would arrive; an empty status is none (record-facts.ts).
    stored.sort((a, b) => a.t - b.t);
    for (const { t, type, status, branch } of stored) {
      const payload = {
        ...(status === null ? {} : { status }),
        ...(branch === null ? {} : { ci: { branch } }),
      };
      await storeEvent(server, me.projectId, t, type, payload);
    }
    const filters: Record<string, string>[] = [{}, { branch: 'main' }, { eventType: 'deploy' }];
    for (const filter of filters) {
      const summary = await get<BuildSummary>(Paths.getBuildSummary, {
        projectId: me.projectId,
        from: iso(from),
        to: iso(to),
        buckets: 9,
        ...filter,
      });
      const counts = stored.flatMap((event) => {
        const bucket = plan.buckets.find((b) => b.start <= event.t && event.t < b.end);
        if (!bucket) return [];
        if ('branch' in filter && event.branch !== filter.branch) return [];
        if ('eventType' in filter && event.type !== filter.eventType) return [];
        const one = { bucket: bucket.index, success: 0, failure: 0, cancelled: 0, other: 0 };
        one[statusClass(event.status)] = 1;
        return [one];
      });
      const want = summaryBuckets(plan, counts);
      expect(summary.buckets).toEqual(want.buckets);
      expect(summary.success_rate).toBe(want.success_rate);
    }
  });
});
