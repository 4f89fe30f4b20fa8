import { randomUUID } from 'node:crypto';
import type { Project } from '../../../contract/projects.js';
import { nowIso } from '../../domain/time.js';
import type { ProjectRef, ProjectRepository } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const projectWrites = ['create'] as const;

export function sqliteProjects(db: Db): Sync<ProjectRepository> {
  const insert = db.prepare(
    'INSERT INTO projects (id, account_id, name, created_at) VALUES (?, ?, ?, ?)',
  );
  const byAccount = db.prepare(
    'SELECT id, name, created_at FROM projects WHERE account_id = ? ORDER BY created_at, id',
  );
  const byId = db.prepare('SELECT account_id AS accountId, name FROM projects WHERE id = ?');

  return {
    create(accountId, name) {
      const project = { id: randomUUID(), name, created_at: nowIso() };
      insert.run(project.id, accountId, project.name, project.created_at);
      return project;
    },

    list: (accountId) => byAccount.all(accountId) as Project[],

    find: (projectId) => byId.get(projectId) as ProjectRef | undefined,
  };
}
