import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { type Comparison, VerdictPaths } from '../../contract/verdicts.js';
import { newRecordId } from '../../server/domain/ids.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * SQLite hands the metric records this process stored to judging without reading them back
 * (server/storage/fresh-metrics.ts, issue 31). A record another writer put in the file (an
 * operator's sqlite3, another process) is not among them: judging must read it from the table and
 * judge it in its place, between the records before and after it. Baselines are computed here from
 * the percentage model's definition (the mean of the earlier values of the branch).
 */

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started));

const declared = { directions: { size: 'lower' } };
const payloadOf = (size: number, commit: string) => ({
  size,
  ...declared,
  ci: { branch: 'main', commit },
});

async function ingest(size: number, commit: string): Promise<string> {
  const res = await server.call('POST', Paths.ingestMetrics, {
    key: me.apiKey,
    body: { projectId: me.projectId, payload: payloadOf(size, commit) },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id;
}

/** The same record written straight into the file by another connection. */
function writtenByAnother(size: number, commit: string): string {
  const id = newRecordId();
  const db = new Database(server.database.location);
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare(
      'INSERT INTO metrics (id, project_id, payload, created_at, branch) VALUES (?, ?, ?, ?, ?)',
    ).run(id, me.projectId, JSON.stringify(payloadOf(size, commit)), Date.now(), 'main');
  } finally {
    db.close();
  }
  return id;
}

async function compare(record: string): Promise<Comparison> {
  const res = await server.call(
    'GET',
    `${VerdictPaths.compare}?projectId=${me.projectId}&record=${record}`,
    { key: me.apiKey },
  );
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

it("judges a record another writer stored between this process's own, in its place", async () => {
  const created = await server.call('POST', VerdictPaths.createThreshold, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      key: 'size',
      branch: 'main',
      test: 'percentage',
      upper_boundary: 0.5,
      min_sample_size: 1,
    },
  });
  expect(created.statusCode, created.body).toBe(201);

  const sizes = [100, 110, 120, 130];
  const ids = [
    await ingest(sizes[0] as number, 'c0'),
    writtenByAnother(sizes[1] as number, 'c1'),
    await ingest(sizes[2] as number, 'c2'),
    await ingest(sizes[3] as number, 'c3'),
  ];
  for (const [i, id] of ids.entries()) {
    const [key] = (await compare(id)).keys;
    const earlier = sizes.slice(0, i);
    expect(key?.value).toBe(sizes[i]);
    expect(key?.sample_size ?? 0).toBe(earlier.length);
    if (earlier.length === 0) continue;
    const mean = earlier.reduce((a, b) => a + b, 0) / earlier.length;
    expect(key?.baseline).toBeCloseTo(mean, 12);
    expect(key?.upper_limit).toBeCloseTo(mean * 1.5, 12);
  }
});
