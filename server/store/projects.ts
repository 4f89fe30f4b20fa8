import { randomUUID } from 'node:crypto';
import type { Project } from '../contract/projects.js';
import type { Db } from '../db/database.js';
import { nowIso } from '../domain/time.js';

export function projectStore(db: Db) {
  const insert = db.prepare(
    'INSERT INTO projects (id, account_id, name, created_at) VALUES (?, ?, ?, ?)',
  );
  const byAccount = db.prepare(
    'SELECT id, name, created_at FROM projects WHERE account_id = ? ORDER BY created_at, id',
  );
  const owner = db.prepare('SELECT account_id FROM projects WHERE id = ?').pluck();

  return {
    create(accountId: string, name: string): Project {
      const project = { id: randomUUID(), name, created_at: nowIso() };
      insert.run(project.id, accountId, project.name, project.created_at);
      return project;
    },

    list: (accountId: string): Project[] => byAccount.all(accountId) as Project[],

    /** The account that owns a project, or undefined when there is no such project. */
    ownerOf: (projectId: string): string | undefined => owner.get(projectId) as string | undefined,
  };
}

export type ProjectStore = ReturnType<typeof projectStore>;
