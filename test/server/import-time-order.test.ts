import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import { selectColumn } from '../helpers/database.js';
import { storeEvent, storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Issue 24's back-dated imports read back by time on both backends (docs/decisions.md): the
 * record lists (get-events, get-metrics, their `from`/`to` and cursors) order and filter by
 * (created_at, seq), so an imported record is listed at its time and not above newer ones; the
 * latest status (the overview's, the badges') is the latest by time; a re-evaluation's range
 * holds the imported records of that range; background judging waits while an import runs.
 */

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started));

const DAY = 86_400_000;
const START = Date.UTC(2026, 3, 1);
const day = (n: number) => START + n * DAY;
const iso = (ms: number) => new Date(ms).toISOString();

const get = async (path: string) => {
  const answer = await server.call('GET', path, { key: me.apiKey });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json();
};

const importRecords = async (kind: 'events' | 'metrics', lines: object[]) => {
  const answer = await server.call('POST', `/stats/import-records?projectId=${me.projectId}`, {
    key: me.apiKey,
    headers: { 'content-type': 'application/x-ndjson' },
    body: [
      JSON.stringify({ format: 'ci-stats-records', version: 1, kind }),
      ...lines.map((line) =>
        JSON.stringify(kind === 'events' ? { description: null, color: null, ...line } : line),
      ),
    ].join('\n'),
  });
  expect(answer.statusCode, answer.body).toBe(200);
  expect(answer.json()).toMatchObject({ imported: lines.length, skipped: 0 });
};

/** Every page of a list, `limit` at a time, as [created_at, name] in the order listed. */
async function listed(kind: 'events' | 'metrics', query: string, limit: number) {
  const path = kind === 'events' ? Paths.getEvents : Paths.getMetrics;
  const seen: [string, unknown][] = [];
  let cursor: string | null = null;
  do {
    const page = await get(
      `${path}?projectId=${me.projectId}&limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    const items = page[kind] as { created_at: string; payload: { name: unknown } }[];
    expect(items.length).toBeLessThanOrEqual(limit);
    for (const item of items) seen.push([item.created_at, item.payload.name]);
    cursor = page.nextCursor;
  } while (cursor !== null && seen.length < 100);
  return seen;
}

/** Records of this project made on days 10 and 20, then another project's newer record. */
async function storeBefore() {
  // In time order: a record's time never goes back in storage order (the server's clock).
  for (const n of [10, 20]) {
    await storeMetric(server, me.projectId, day(n), { name: `n${n}`, t: n });
    await storeEvent(server, me.projectId, day(n), 'build', { name: `n${n}`, status: 'success' });
  }
  const other = await server.account();
  await storeMetric(server, other.projectId, Date.now(), { t: 1 });
  await storeEvent(server, other.projectId, Date.now(), 'build', { status: 'failure' });
}

describe('imported records read back by time', () => {
  it('get-metrics and get-events list imported records at their times, page by page and within from/to', async () => {
    await storeBefore();
    const days = [5, 15, 25];
    await importRecords(
      'metrics',
      days.map((n) => ({ id: `m${n}`, created_at: iso(day(n)), payload: { name: `i${n}`, t: n } })),
    );
    await importRecords(
      'events',
      days.map((n) => ({
        id: `e${n}`,
        created_at: iso(day(n)),
        eventType: 'build',
        payload: { name: `i${n}`, status: 'success' },
      })),
    );
    const all = [
      [iso(day(25)), 'i25'],
      [iso(day(20)), 'n20'],
      [iso(day(15)), 'i15'],
      [iso(day(10)), 'n10'],
      [iso(day(5)), 'i5'],
    ];
    for (const kind of ['metrics', 'events'] as const) {
      expect(await listed(kind, '', 100), kind).toEqual(all);
      // Two at a time: each cursor continues where the page before ended, by time.
      expect(await listed(kind, '', 2), kind).toEqual(all);
      expect(await listed(kind, '', 1), kind).toEqual(all);
      // A range that holds an imported record between stored ones, and one of imported only.
      const range = `&from=${iso(day(12))}&to=${iso(day(22))}`;
      expect(await listed(kind, range, 1), kind).toEqual([
        [iso(day(20)), 'n20'],
        [iso(day(15)), 'i15'],
      ]);
      expect(await listed(kind, `&from=${iso(day(1))}&to=${iso(day(9))}`, 10), kind).toEqual([
        [iso(day(5)), 'i5'],
      ]);
      expect(await listed(kind, `&from=${iso(day(5))}&to=${iso(day(25))}`, 2), kind).toEqual(
        all.slice(1),
      );
    }
  });

  it('the latest status is the latest by time: an import of older events leaves it, a newer one changes it', async () => {
    await storeBefore();
    const latest = async () => {
      const answer = await get(Paths.getProjectSummaries);
      const summary = answer.projects.find((p: { id: string }) => p.id === me.projectId);
      expect(summary).toBeDefined();
      return summary.latest;
    };
    expect(await latest()).toEqual({ status: 'success', event_type: 'build' });
    await importRecords('events', [
      {
        id: 'old-1',
        created_at: iso(day(3)),
        eventType: 'deploy',
        payload: { status: 'failure' },
      },
      { id: 'old-2', created_at: iso(day(15)), eventType: 'build', payload: { status: 'failure' } },
    ]);
    expect(await latest()).toEqual({ status: 'success', event_type: 'build' });
    await importRecords('events', [
      {
        id: 'new-1',
        created_at: iso(day(21)),
        eventType: 'deploy',
        payload: { status: 'failure' },
      },
    ]);
    expect(await latest()).toEqual({ status: 'failure', event_type: 'deploy' });
  });

  it("a re-evaluation's range holds the imported records of that range", async () => {
    await storeBefore();
    const days = [1, 2, 3, 4];
    await importRecords(
      'metrics',
      days.map((n) => ({
        id: `r${n}`,
        created_at: iso(day(n)),
        payload: { t: 100 + n, directions: { t: 'lower' }, ci: { branch: 'main' } },
      })),
    );
    const asked = async (body: Record<string, unknown>) => {
      const answer = await server.call('POST', VerdictPaths.reevaluate, {
        key: me.apiKey,
        body: { projectId: me.projectId, ...body },
      });
      expect(answer.statusCode, answer.body).toBe(202);
      return answer.json().reevaluation;
    };
    expect(await asked({ from: iso(day(0)), to: iso(day(5)) })).toMatchObject({
      records: days.length,
      next_from: null,
    });
    expect(await asked({ from: iso(day(2)), to: iso(day(4)), branch: 'main' })).toMatchObject({
      records: 2,
      next_from: null,
    });
    // The whole project: the imported records and the stored ones, in time order.
    expect(await asked({})).toMatchObject({ records: days.length + 2, next_from: null });
  });

  it('judging waits while an import runs, and judges what was stored meanwhile once it ends', async () => {
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    const judged = async () =>
      Number((await selectColumn(server.database, 'SELECT COUNT(*) FROM judged_records'))[0]);
    // An import whose body is still being sent: the server has begun it.
    let finish = () => {};
    const rest = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const encoder = new TextEncoder();
    const header = JSON.stringify({ format: 'ci-stats-records', version: 1, kind: 'metrics' });
    const line = JSON.stringify({ id: 'late', created_at: iso(day(1)), payload: { t: 1 } });
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode(`${header}\n`));
        await rest;
        controller.enqueue(encoder.encode(`${line}\n`));
        controller.close();
      },
    });
    const answer = fetch(`${url}/stats/import-records?projectId=${me.projectId}`, {
      method: 'POST',
      headers: { 'x-api-key': me.apiKey, 'content-type': 'application/x-ndjson' },
      body,
      duplex: 'half',
    } as RequestInit);
    // A metric ingested meanwhile (E8) is stored, and not judged while the import runs.
    const sent = await server.call('POST', Paths.ingestMetrics, {
      key: me.apiKey,
      body: { projectId: me.projectId, payload: { t: 5, directions: { t: 'lower' } } },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    // Longer than the worker's start delay (20 ms) and its poll (1 s).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const judgedDuring = await judged();
    finish();
    expect(judgedDuring).toBe(0);
    const imported = await answer;
    expect(imported.status).toBe(200);
    expect(await imported.json()).toMatchObject({ imported: 1, skipped: 0 });
    // Then both are judged in the background, without a read that waits for them.
    const deadline = Date.now() + 20_000;
    while ((await judged()) < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await judged()).toBe(2);
  });
});
