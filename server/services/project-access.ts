import { SpecError } from '../contract/errors.js';
import { HttpError } from '../errors.js';
import type { ProjectRef, ProjectStore } from '../store/projects.js';

/** The ownership check of E7, E8 and the read-back endpoints. */
export function projectAccess(projects: ProjectStore) {
  return {
    /**
     * The caller's project, or 403. Unknown projects answer like foreign ones, so nobody learns
     * which project ids exist.
     */
    assertOwn(accountId: string, projectId: string): ProjectRef {
      const project = projects.find(projectId);
      if (project?.accountId !== accountId) throw new HttpError(403, SpecError.forbiddenProject);
      return project;
    },
  };
}

export type ProjectAccess = ReturnType<typeof projectAccess>;
