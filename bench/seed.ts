import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { sqliteStatsIndex } from '../server/storage/sqlite/sqlite-stats.js';
import { markStoredRecords } from '../server/storage/sqlite/sqlite-time-marks.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const BATCH = 50_000;

/**
 * Opens a stopped server's database for seeding: rows go in large unsynchronised transactions,
 * then get the minute marks and statistics cells the server keeps (as its migration would).
 */
export function seeding(databasePath: string, fill: (db: Database.Database) => void): void {
  const db = new Database(databasePath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  fill(db);
  db.transaction(() => {
    markStoredRecords(db, 'events', BATCH);
    markStoredRecords(db, 'metrics', BATCH);
    sqliteStatsIndex(db).foldAll();
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** `count` events of one project, all made now. */
export function seedEvents(databasePath: string, projectId: string, count: number): void {
  seeding(databasePath, (db) => {
    const insert = db.prepare(
      `INSERT INTO events (id, project_id, event_type, description, payload, color, created_at)
       VALUES (?, ?, 'build', 'seeded', ?, 65280, ?)`,
    );
    const payload = JSON.stringify({
      duration_ms: 1234,
      ok: true,
      branch: 'main',
      commit: '0123456789abcdef',
    });
    const batch = db.transaction((n: number) => {
      for (let i = 0; i < n; i++) insert.run(uuidv7(), projectId, payload, Date.now());
    });
    for (let done = 0; done < count; done += BATCH) batch(Math.min(BATCH, count - done));
  });
}

const BRANCHES = ['main', 'develop', 'feature/login'];
const STATUSES = ['success', 'success', 'success', 'success', 'failure', 'cancelled', 'skipped'];

/**
 * The statistics scenario's project: `count` metric records and `count` events spread evenly over
 * the last `days` days, three branches, metrics with four numeric series (two nested) and a text.
 */
export function seedHistory(
  databasePath: string,
  projectId: string,
  count: number,
  days: number,
): void {
  seeding(databasePath, (db) => {
    const event = db.prepare(
      `INSERT INTO events
         (id, project_id, event_type, description, payload, color, created_at, branch, status)
       VALUES (?, ?, ?, 'seeded', ?, NULL, ?, ?, ?)`,
    );
    const metric = db.prepare(
      `INSERT INTO metrics (id, project_id, payload, created_at, branch) VALUES (?, ?, ?, ?, ?)`,
    );
    const end = Date.now();
    const step = (days * DAY_MS) / count;
    let random = 12345;
    const next = () => {
      random = (random * 1103515245 + 12345) % 2147483648;
      return random / 2147483648;
    };
    const batch = db.transaction((from: number, n: number) => {
      for (let i = from; i < from + n; i++) {
        const t = Math.floor(end - days * DAY_MS + i * step);
        const branch = BRANCHES[i % 3] as string;
        const status = STATUSES[i % STATUSES.length] as string;
        const github = { ref: `refs/heads/${branch}`, sha: 'a1b2c3d4e5f6', run_id: i };
        event.run(
          uuidv7(),
          projectId,
          i % 10 === 0 ? 'deploy' : 'build',
          JSON.stringify({ status, github }),
          t,
          branch,
          status,
        );
        const payload = {
          duration_ms: Math.round(60_000 + next() * 240_000),
          bundle_kb: Math.round(500 + next() * 50),
          tests: { passed: 400 + (i % 50), failed: i % 17 === 0 ? 1 : 0 },
          runner: 'ubuntu-latest',
          github,
        };
        metric.run(uuidv7(), projectId, JSON.stringify(payload), t, branch);
      }
    });
    for (let done = 0; done < count; done += BATCH) batch(done, Math.min(BATCH, count - done));
  });
}

/**
 * A key of the tenants scenario's big project: record `i` of `count` carries 100 numeric keys of
 * one group of 100, and the groups change over time, `keys` distinct keys in all (issue 22: 100
 * keys per record, 20,000 distinct over time).
 */
export function tenantKeysOf(i: number, count: number, keys: number): string[] {
  const groups = keys / 100;
  const group = Math.floor((i * groups) / count);
  return Array.from({ length: 100 }, (_, j) => `k${group * 100 + j}`);
}

/**
 * The tenants scenario's big project on SQLite (issue 22): `metrics` records of 100 numeric keys
 * each (`keys` distinct over time) and `events` events with a status, spread over the last `days`
 * days, then folded into the statistics as the server would.
 */
export function seedTenant(
  databasePath: string,
  projectId: string,
  sizes: { metrics: number; events: number; keys: number; days: number },
): void {
  seeding(databasePath, (db) => {
    const event = db.prepare(
      `INSERT INTO events
         (id, project_id, event_type, description, payload, color, created_at, branch, status)
       VALUES (?, ?, 'build', NULL, ?, NULL, ?, 'main', ?)`,
    );
    const metric = db.prepare(
      `INSERT INTO metrics (id, project_id, payload, created_at, branch) VALUES (?, ?, ?, ?, 'main')`,
    );
    const end = Date.now();
    const start = end - sizes.days * DAY_MS;
    db.transaction(() => {
      for (let i = 0; i < sizes.events; i++) {
        const status = STATUSES[i % STATUSES.length] as string;
        const t = Math.floor(start + (i * (end - start)) / sizes.events);
        event.run(
          uuidv7(),
          projectId,
          JSON.stringify({ status, ci: { branch: 'main' } }),
          t,
          status,
        );
      }
      for (let i = 0; i < sizes.metrics; i++) {
        const keys = tenantKeysOf(i, sizes.metrics, sizes.keys);
        const payload = Object.fromEntries(keys.map((key, j) => [key, (i * 7 + j) % 1000]));
        const t = Math.floor(start + (i * (end - start)) / sizes.metrics);
        metric.run(uuidv7(), projectId, JSON.stringify(payload), t);
      }
    })();
  });
}
