import { randomUUID } from 'node:crypto';
import type { Project } from '../../../contract/projects.js';
import { nowIso } from '../../domain/time.js';
import type { ProjectRef, ProjectRepository } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const projectWrites = ['create'] as const;

export function sqliteProjects(db: Db): Sync<ProjectRepository> {
  // The unique (account_id, name_key) index decides between two creations of one name.
  const insert = db.prepare(
    `INSERT INTO projects (id, account_id, name, name_key, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT DO NOTHING`,
  );
  const byAccount = db.prepare(
    'SELECT id, name, created_at FROM projects WHERE account_id = ? ORDER BY created_at, id',
  );
  const byId = db.prepare('SELECT account_id AS accountId, name FROM projects WHERE id = ?');

  return {
    create(accountId, name, nameKey) {
      const project = { id: randomUUID(), name, created_at: nowIso() };
      const inserted = insert.run(project.id, accountId, name, nameKey, project.created_at);
      return inserted.changes > 0 ? project : undefined;
    },

    list: (accountId) => byAccount.all(accountId) as Project[],

    find: (projectId) => byId.get(projectId) as ProjectRef | undefined,
  };
}
