import { randomUUID } from 'node:crypto';
import type { Project } from '../../../contract/projects.js';
import { nowIso } from '../../domain/time.js';
import type { ProjectRef, ProjectRepository } from '../storage.js';
import type { Sql } from './pg-database.js';

export function pgProjects(sql: Sql): ProjectRepository {
  return {
    // The unique (account_id, name_key) index decides between two creations of one name, on any
    // replica: the later insert waits for the earlier's commit, then inserts nothing.
    async create(accountId, name, nameKey) {
      const project = { id: randomUUID(), name, created_at: nowIso() };
      const inserted = await sql`
        INSERT INTO projects (id, account_id, name, name_key, created_at)
        VALUES (${project.id}, ${accountId}, ${name}, ${nameKey}, ${project.created_at})
        ON CONFLICT DO NOTHING RETURNING 1`;
      return inserted.length > 0 ? project : undefined;
    },

    async list(accountId) {
      const rows = await sql<Project[]>`
        SELECT id, name, created_at FROM projects WHERE account_id = ${accountId}
         ORDER BY created_at, id`;
      return rows.map((row) => ({ ...row }));
    },

    async find(projectId): Promise<ProjectRef | undefined> {
      const [row] = await sql<ProjectRef[]>`
        SELECT account_id AS "accountId", name FROM projects WHERE id = ${projectId}`;
      return row && { ...row };
    },
  };
}
