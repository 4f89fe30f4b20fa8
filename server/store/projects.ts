import { randomUUID } from 'node:crypto';
import type { Project } from '../contract/projects.js';
import type { Db } from '../db/database.js';
import { nowIso } from '../domain/time.js';

export interface ProjectRef {
  accountId: string;
  name: string;
}

export function projectStore(db: Db) {
  const insert = db.prepare(
    'INSERT INTO projects (id, account_id, name, created_at) VALUES (?, ?, ?, ?)',
  );
  const byAccount = db.prepare(
    'SELECT id, name, created_at FROM projects WHERE account_id = ? ORDER BY created_at, id',
  );
  const byId = db.prepare('SELECT account_id AS accountId, name FROM projects WHERE id = ?');

  return {
    create(accountId: string, name: string): Project {
      const project = { id: randomUUID(), name, created_at: nowIso() };
      insert.run(project.id, accountId, project.name, project.created_at);
      return project;
    },

    list: (accountId: string): Project[] => byAccount.all(accountId) as Project[],

    /** A project's owner and name, or undefined when there is no such project. */
    find: (projectId: string): ProjectRef | undefined =>
      byId.get(projectId) as ProjectRef | undefined,
  };
}

export type ProjectStore = ReturnType<typeof projectStore>;
