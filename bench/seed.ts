import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';

/** Fills a stopped server's database with `count` events of one project, in large transactions. */
export function seedEvents(databasePath: string, projectId: string, count: number): void {
  const db = new Database(databasePath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
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
  for (let done = 0; done < count; done += 50_000) batch(Math.min(50_000, count - done));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
