import type { Project } from '../../contract/projects.js';
import { Conflict } from '../domain/domain-errors.js';
import { projectNameKey } from '../domain/project-names.js';
import type { KeyOwner, Repositories, Storage } from '../storage/storage.js';

/** The account's projects: E6, and creating them (the API, the dashboard, the admin). */
export function projectService(storage: Storage) {
  return {
    /** E6: the caller's projects; an ingest key limited to some projects sees only those. */
    async list(caller: Pick<KeyOwner, 'accountId' | 'projectIds'>): Promise<Project[]> {
      const projects = await storage.projects.list(caller.accountId);
      const allowed = caller.projectIds;
      return allowed === null ? projects : projects.filter((p) => allowed.includes(p.id));
    },

    /**
     * A new project; a name the account already uses, in any case, is a Conflict. `name` is
     * trimmed and checked by the contract's schema. `repositories`: the transaction to join.
     */
    async create(
      accountId: string,
      name: string,
      repositories: Repositories = storage,
    ): Promise<Project> {
      const project = await repositories.projects.create(accountId, name, projectNameKey(name));
      if (!project) throw new Conflict('project-name-taken');
      return project;
    },
  };
}

export type ProjectService = ReturnType<typeof projectService>;
