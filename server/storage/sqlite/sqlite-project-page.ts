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
      ORDER BY created_at, seq LIMIT @limit`,
  );
  const changePointMarks = db.prepare(
    `SELECT key, at, commit_sha AS "commit", before_mean AS "from", after_mean AS "to"
       FROM change_points WHERE project_id = ? AND at >= ? AND at < ?
      ORDER BY at, key LIMIT ?`,
  );
  return {
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
