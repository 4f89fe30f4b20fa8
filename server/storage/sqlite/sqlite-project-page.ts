import { HOUR_MS, MINUTE_MS } from '../../domain/time-buckets.js';
import type { PageMarkRow, ProjectPageRepository } from '../project-page/page-repository.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const projectPageWrites = ['setDurationKey'] as const;

/** The project page's own reads and setting on SQLite (project-page/page-repository.ts). */
export function sqliteProjectPage(db: Db): Sync<ProjectPageRepository> {
  const durationKey = db.prepare('SELECT duration_key FROM projects WHERE id = ?').pluck();
  const setDurationKey = db.prepare('UPDATE projects SET duration_key = ? WHERE id = ?');
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
  // The hours holding such events, then their minutes in the range: a few index reads.
  const eventMinutes = db.prepare(
    `SELECT DISTINCT m.start, m.event_type AS eventType FROM event_cells h
         JOIN event_cells m ON m.project_id = h.project_id AND m.unit = ${MINUTE_MS}
          AND m.start >= h.start AND m.start < h.start + ${HOUR_MS}
          AND m.event_type = h.event_type AND m.branch = h.branch
        WHERE h.project_id = @projectId AND h.unit = ${HOUR_MS}
          AND h.start >= @hourFrom AND h.start < @to
          AND h.event_type IN (SELECT value FROM json_each(@types))
          AND (@branch IS NULL OR h.branch = @branch)
          AND m.start >= @from AND m.start < @to
        ORDER BY m.start DESC LIMIT @limit`,
  );
  const eventTypes = db
    .prepare(
      `SELECT DISTINCT event_type FROM event_cells
        WHERE project_id = @projectId AND unit = ${HOUR_MS} AND start >= @from AND start < @to
          AND (@branch IS NULL OR branch = @branch)
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
      }) as string[],
    eventMinutes: (projectId, types, from, to, branch, limit) =>
      eventMinutes.all({
        projectId,
        types: JSON.stringify(types),
        hourFrom: Math.floor(from / HOUR_MS) * HOUR_MS,
        from: Math.floor(from / MINUTE_MS) * MINUTE_MS,
        to,
        branch: branch ?? null,
        limit,
      }) as { start: number; eventType: string }[],
    durationKey: (projectId) => (durationKey.get(projectId) as string | null | undefined) ?? null,
    setDurationKey: (projectId, key) => void setDurationKey.run(key, projectId),
    activeAlerts: (projectId, from, to, branch) =>
      activeAlerts.get({ projectId, from, to, branch: branch ?? null }) as number,
    alertMarks: (projectId, from, to, branch, limit) =>
      alertMarks.all({ projectId, from, to, branch: branch ?? null, limit }) as PageMarkRow[],
    changePointMarks: (projectId, from, to, limit) =>
      changePointMarks.all(projectId, from, to, limit) as PageMarkRow[],
  };
}
