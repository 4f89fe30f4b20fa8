import { Forbidden } from '../domain/domain-errors.js';
import type { ProjectRef, Storage } from '../storage/storage.js';

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
     * learns which project ids exist.
     */
    async assertOwn(accountId: string, projectId: string): Promise<ProjectRef> {
      let project = known.get(projectId);
      if (project === undefined) {
        project = await storage.projects.find(projectId);
        if (project !== undefined) {
          if (known.size >= MAX_CACHED_PROJECTS) known.clear();
          known.set(projectId, project);
        }
      }
      if (project?.accountId !== accountId) throw new Forbidden('project');
      return project;
    },
  };
}

export type ProjectAccess = ReturnType<typeof projectAccess>;
