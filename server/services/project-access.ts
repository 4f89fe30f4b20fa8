import { Forbidden } from '../domain/domain-errors.js';
import type { KeyOwner, ProjectRef, Storage } from '../storage/storage.js';

const MAX_CACHED_PROJECTS = 100_000;

/**
 * The ownership check of E7, E8 and the read-back endpoints. Projects are never deleted and never
 * change owner, so a project once found can be remembered for good; a database read per ingest
 * was the largest single cost of the hot path.
 */
export function projectAccess(storage: Storage) {
  const known = new Map<string, ProjectRef>();

  return {
    /**
     * The caller's project, or Forbidden. Unknown projects answer like foreign ones, so nobody
     * learns which project ids exist; so does a project an ingest key is not limited to.
     */
    async assertOwn(
      caller: Pick<KeyOwner, 'accountId' | 'projectIds'>,
      projectId: string,
    ): Promise<ProjectRef> {
      let project = known.get(projectId);
      if (project === undefined) {
        project = await storage.projects.find(projectId);
        if (project !== undefined) {
          if (known.size >= MAX_CACHED_PROJECTS) known.clear();
          known.set(projectId, project);
        }
      }
      if (project?.accountId !== caller.accountId) throw new Forbidden('project');
      if (caller.projectIds !== null && !caller.projectIds.includes(projectId)) {
        throw new Forbidden('project');
      }
      return project;
    },
  };
}

export type ProjectAccess = ReturnType<typeof projectAccess>;
