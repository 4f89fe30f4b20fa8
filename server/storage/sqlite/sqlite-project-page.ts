import { HOUR_MS, MINUTE_MS } from '../../domain/time-buckets.js';
import type {
  KeyDisplayRow,
  PageMarkRow,
  ProjectPageRepository,
} from '../project-page/page-repository.js';
import type { Db } from './sqlite-database.js';
import type { SqliteStatsIndex } from './sqlite-stats.js';
import type { Sync } from './sync.js';

export const projectPageWrites = ['setDurationKey', 'setMarkEventTypes', 'setKeyDisplay'] as const;

/** The project page's own reads and setting on SQLite (project-page/page-repository.ts). */
export function sqliteProjectPage(
  db: Db,
  index: Pick<SqliteStatsIndex, 'watermark'>,
): Sync<ProjectPageRepository> {
  const durationKey = db.prepare('SELECT duration_key FROM projects WHERE id = ?').pluck();
  const setDurationKey = db.prepare('UPDATE projects SET duration_key = ? WHERE id = ?');
  const markTypes = db.prepare('SELECT mark_event_types FROM projects WHERE id = ?').pluck();
  const setMarkTypes = db.prepare('UPDATE projects SET mark_event_types = ? WHERE id = ?');
  const keyDisplay = db.prepare(
    `SELECT key, display FROM key_display WHERE project_id = ?
      ORDER BY display = 'hidden', CASE display WHEN 'pinned' THEN at END, key`,
  );
  const displayOf = db
    .prepare('SELECT display FROM key_display WHERE project_id = ? AND key = ?')
    .pluck();
  const unsetKeyDisplay = db.prepare('DELETE FROM key_display WHERE project_id = ? AND key = ?');
  // Stored only while fewer than @limit other keys have that display (a key already so is kept).
  const putKeyDisplay = db.prepare(
    `INSERT INTO key_display (project_id, key, display, at)
     SELECT @projectId, @key, @display, @at
      WHERE (SELECT count(*) FROM key_display
              WHERE project_id = @projectId AND display = @display AND key <> @key) < @limit
     ON CONFLICT (project_id, key) DO UPDATE SET display = excluded.display, at = excluded.at
      WHERE key_display.display <> excluded.display`,
  );
  // `@branch IS NULL`: every branch.
  const activeAlerts = db
    .prepare(
      `SELECT count(*) FROM alerts
        WHERE project_id = @projectId AND status = 'active' AND created_at >= @from AND created_at < @to
          AND (@branch IS NULL OR branch = @branch)`,
    )
    .pluck();
  const alertMarks = db.prepare(
    `SELECT key, created_at AS at, commit_sha AS "commit", value AS "to", limit_value AS "from"
       FROM alerts
      WHERE project_id = @projectId AND status = 'active' AND created_at >= @from AND created_at < @to
        AND (@branch IS NULL OR branch = @branch)
      ORDER BY created_at DESC, seq DESC LIMIT @limit`,
  );
  const changePointMarks = db.prepare(
    `SELECT key, at, commit_sha AS "commit", before_mean AS "from", after_mean AS "to"
       FROM change_points WHERE project_id = ? AND at >= ? AND at < ?
      ORDER BY at DESC, key DESC LIMIT ?`,
  );
  // `@types` is a JSON array of the types.
  const eventCells = (unit: number, columns: string, limit: string) =>
    db.prepare(
      `SELECT ${columns} FROM event_cells
        WHERE project_id = @projectId AND unit = ${unit} AND start >= @from AND start < @to
          AND event_type IN (SELECT value FROM json_each(@types))
          AND (@branch IS NULL OR branch = @branch)
        ORDER BY start DESC ${limit}`,
    );
  const eventHours = eventCells(HOUR_MS, 'DISTINCT start', 'LIMIT @limit').pluck();
  const eventMinutes = eventCells(MINUTE_MS, 'DISTINCT start, event_type AS eventType', '');
  // The types of the hour cells, and of the events not folded into them yet (stored in the last
  // second: without them a type first seen then would be missing from the table).
  const eventTypes = db
    .prepare(
      `SELECT event_type FROM (
         SELECT event_type FROM event_cells
          WHERE project_id = @projectId AND unit = ${HOUR_MS} AND start >= @from AND start < @to
            AND (@branch IS NULL OR branch = @branch)
         UNION
         SELECT event_type FROM events
          WHERE seq > @after AND project_id = @projectId AND created_at >= @from
            AND created_at < @to AND (@branch IS NULL OR branch = @branch))
        ORDER BY event_type LIMIT @limit`,
    )
    .pluck();
  return {
    eventTypes: (projectId, from, to, branch, limit) =>
      eventTypes.all({
        projectId,
        from: Math.floor(from / HOUR_MS) * HOUR_MS,
        to,
        branch: branch ?? null,
        limit,
        after: index.watermark().events,
      }) as string[],
    eventHours: (projectId, types, from, to, branch, limit) =>
      eventHours.all({
        projectId,
        types: JSON.stringify(types),
        from: Math.floor(from / HOUR_MS) * HOUR_MS,
        to,
        branch: branch ?? null,
        limit,
      }) as number[],
    eventMinutes: (projectId, types, from, to, branch) =>
      eventMinutes.all({
        projectId,
        types: JSON.stringify(types),
        from: Math.floor(from / MINUTE_MS) * MINUTE_MS,
        to,
        branch: branch ?? null,
      }) as { start: number; eventType: string }[],
    keyDisplay: (projectId) => keyDisplay.all(projectId) as KeyDisplayRow[],
    setKeyDisplay: (projectId, key, display, at, limit) => {
      if (display === null) {
        unsetKeyDisplay.run(projectId, key);
        return true;
      }
      putKeyDisplay.run({ projectId, key, display, at, limit });
      return displayOf.get(projectId, key) === display;
    },
    durationKey: (projectId) => (durationKey.get(projectId) as string | null | undefined) ?? null,
    setDurationKey: (projectId, key) => void setDurationKey.run(key, projectId),
    markEventTypes: (projectId) => {
      const stored = markTypes.get(projectId) as string | null | undefined;
      return stored == null ? null : (JSON.parse(stored) as string[]);
    },
    setMarkEventTypes: (projectId, types) =>
      void setMarkTypes.run(types === null ? null : JSON.stringify(types), projectId),
    activeAlerts: (projectId, from, to, branch) =>
      activeAlerts.get({ projectId, from, to, branch: branch ?? null }) as number,
    alertMarks: (projectId, from, to, branch, limit) =>
      alertMarks.all({ projectId, from, to, branch: branch ?? null, limit }) as PageMarkRow[],
    changePointMarks: (projectId, from, to, limit) =>
      changePointMarks.all(projectId, from, to, limit) as PageMarkRow[],
  };
}
