import type {
  ExportEventRow,
  ExportMetricRow,
  ExportRange,
  RecordExportRepository,
  RecordTable,
} from '../storage.js';
import type { Db } from './sqlite-database.js';
import { sqliteTestExport } from './sqlite-test-export.js';
import type { Sync } from './sync.js';

// A page walks the project's (project_id, seq) index from the position on; the time range is a
// filter on the way (`@from IS NULL`: no lower edge), so a page costs its rows, never an offset.
const RANGE = '(@from IS NULL OR created_at >= @from) AND (@to IS NULL OR created_at < @to)';

/** The export's pages on SQLite, in stored order (sqlite and postgres differ only in SQL). */
export function sqliteExport(db: Db): Sync<RecordExportRepository> {
  const events = db.prepare(
    `SELECT seq, id, event_type AS eventType, description, payload, color, created_at AS createdAt
       FROM events WHERE project_id = @projectId AND seq > @after AND ${RANGE}
      ORDER BY seq LIMIT @limit`,
  );
  const metrics = db.prepare(
    `SELECT seq, id, payload, created_at AS createdAt
       FROM metrics WHERE project_id = @projectId AND seq > @after AND ${RANGE}
      ORDER BY seq LIMIT @limit`,
  );
  // Record ids have no index of their own (ingest would pay for it): a resume scans the project.
  const statements = (table: RecordTable) => ({
    seqOf: db.prepare(
      `SELECT seq, created_at AS createdAt FROM ${table} WHERE project_id = ? AND id = ?`,
    ),
    before: db
      .prepare(`SELECT COALESCE(MAX(seq), 0) FROM ${table} WHERE project_id = ? AND created_at < ?`)
      .pluck(),
    atOrBefore: db
      .prepare(
        `SELECT COALESCE(MAX(seq), 0) FROM ${table} WHERE project_id = ? AND created_at <= ?`,
      )
      .pluck(),
  });
  const of = { events: statements('events'), metrics: statements('metrics') };
  const params = (projectId: string, range: ExportRange, after: number, limit: number) => ({
    projectId,
    from: range.from ?? null,
    to: range.to ?? null,
    after,
    limit,
  });

  return {
    events: (projectId, range, after, limit) =>
      events.all(params(projectId, range, after, limit)) as ExportEventRow[],
    metrics: (projectId, range, after, limit) =>
      metrics.all(params(projectId, range, after, limit)) as ExportMetricRow[],
    seqOf: (projectId, table, id) =>
      of[table].seqOf.get(projectId, id) as { seq: number; createdAt: number } | undefined,
    lastSeqBefore: (projectId, table, t, inclusive) =>
      (inclusive ? of[table].atOrBefore : of[table].before).get(projectId, t) as number,
    ...sqliteTestExport(db),
  };
}
