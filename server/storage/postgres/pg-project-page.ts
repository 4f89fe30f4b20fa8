import { HOUR_MS, MINUTE_MS } from '../../domain/time-buckets.js';
import type {
  KeyDisplayRow,
  PageMarkRow,
  ProjectPageRepository,
} from '../project-page/page-repository.js';
import type { Sql } from './pg-database.js';

const copy = <T extends object>(rows: readonly T[]): T[] => rows.map((row) => ({ ...row }));

/** The project page's own reads and setting on PostgreSQL (the same rows as SQLite's). */
export function pgProjectPage(sql: Sql): ProjectPageRepository {
  const ofBranch = (branch: string | undefined) =>
    branch === undefined ? sql`` : sql`AND branch = ${branch}`;
  return {
    async keyDisplay(projectId) {
      return copy(
        await sql<KeyDisplayRow[]>`
          SELECT key, display FROM key_display WHERE project_id = ${projectId}
           ORDER BY display = 'hidden', CASE display WHEN 'pinned' THEN at END, key COLLATE "C"`,
      );
    },

    async setKeyDisplay(projectId, key, display, at, limit) {
      if (display === null) {
        await sql`DELETE FROM key_display WHERE project_id = ${projectId} AND key = ${key}`;
        return true;
      }
      // As SQLite's: stored only while fewer than `limit` other keys have that display.
      await sql`
        INSERT INTO key_display (project_id, key, display, at)
        SELECT ${projectId}::text, ${key}::text, ${display}::text, ${at}::bigint
         WHERE (SELECT count(*) FROM key_display
                 WHERE project_id = ${projectId} AND display = ${display} AND key <> ${key}) < ${limit}::int
        ON CONFLICT (project_id, key) DO UPDATE SET display = excluded.display, at = excluded.at
         WHERE key_display.display <> excluded.display`;
      const [row] = await sql<{ display: string }[]>`
        SELECT display FROM key_display WHERE project_id = ${projectId} AND key = ${key}`;
      return row?.display === display;
    },

    async durationKey(projectId) {
      const [row] = await sql<{ key: string | null }[]>`
        SELECT duration_key AS key FROM projects WHERE id = ${projectId}`;
      return row?.key ?? null;
    },

    async setDurationKey(projectId, key) {
      await sql`UPDATE projects SET duration_key = ${key} WHERE id = ${projectId}`;
    },

    async markEventTypes(projectId) {
      const [row] = await sql<{ types: string | null }[]>`
        SELECT mark_event_types AS types FROM projects WHERE id = ${projectId}`;
      return row?.types == null ? null : (JSON.parse(row.types) as string[]);
    },

    async setMarkEventTypes(projectId, types) {
      const stored = types === null ? null : JSON.stringify(types);
      await sql`UPDATE projects SET mark_event_types = ${stored} WHERE id = ${projectId}`;
    },

    async activeAlerts(projectId, from, to, branch) {
      const [row] = await sql<{ count: number }[]>`
        SELECT count(*)::int AS count FROM alerts
         WHERE project_id = ${projectId} AND status = 'active'
           AND created_at >= ${from} AND created_at < ${to} ${ofBranch(branch)}`;
      return row?.count ?? 0;
    },

    async alertMarks(projectId, from, to, branch, limit) {
      return copy(
        await sql<PageMarkRow[]>`
          SELECT key, created_at AS at, commit_sha AS "commit", value AS "to",
                 limit_value AS "from"
            FROM alerts
           WHERE project_id = ${projectId} AND status = 'active'
             AND created_at >= ${from} AND created_at < ${to} ${ofBranch(branch)}
           ORDER BY created_at DESC, seq DESC LIMIT ${limit}`,
      );
    },

    async eventHours(projectId, types, from, to, branch, limit) {
      const rows = await sql<{ start: number }[]>`
        SELECT DISTINCT start FROM event_cells
         WHERE project_id = ${projectId} AND unit = ${HOUR_MS}
           AND start >= ${Math.floor(from / HOUR_MS) * HOUR_MS} AND start < ${to}
           AND event_type IN ${sql([...types])} ${ofBranch(branch)}
         ORDER BY start DESC LIMIT ${limit}`;
      return rows.map((row) => row.start);
    },

    async eventMinutes(projectId, types, from, to, branch) {
      return copy(
        await sql<{ start: number; eventType: string }[]>`
          SELECT DISTINCT start, event_type AS "eventType" FROM event_cells
           WHERE project_id = ${projectId} AND unit = ${MINUTE_MS}
             AND start >= ${Math.floor(from / MINUTE_MS) * MINUTE_MS} AND start < ${to}
             AND event_type IN ${sql([...types])} ${ofBranch(branch)}
           ORDER BY start DESC`,
      );
    },

    // The types of the hour cells, and of the events still queued for the fold (stored in the
    // last second: without them a type first seen then would be missing from the table).
    async eventTypes(projectId, from, to, branch, limit) {
      const start = Math.floor(from / HOUR_MS) * HOUR_MS;
      const rows = await sql<{ type: string }[]>`
        SELECT type FROM (
          SELECT event_type COLLATE "C" AS type FROM event_cells
           WHERE project_id = ${projectId} AND unit = ${HOUR_MS}
             AND start >= ${start} AND start < ${to}
             ${branch === undefined ? sql`` : sql`AND branch = ${branch}`}
          UNION
          SELECT e.event_type COLLATE "C" FROM stats_queue q CROSS JOIN LATERAL (
            SELECT * FROM events e
             WHERE e.seq = ANY(q.events) AND e.project_id = ${projectId}
                   AND e.created_at >= ${start} AND e.created_at < ${to}
                   ${branch === undefined ? sql`` : sql`AND e.branch = ${branch}`}
                   OFFSET 0) e) t
         ORDER BY 1 LIMIT ${limit}`;
      return rows.map((row) => row.type);
    },

    async changePointMarks(projectId, from, to, limit) {
      return copy(
        await sql<PageMarkRow[]>`
          SELECT key, at, commit_sha AS "commit", before_mean AS "from", after_mean AS "to"
            FROM change_points WHERE project_id = ${projectId} AND at >= ${from} AND at < ${to}
           ORDER BY at DESC, key COLLATE "C" DESC LIMIT ${limit}`,
      );
    },
  };
}
