import { SpecError } from '../contract/errors.js';
import { HttpError } from '../errors.js';
import type { ProjectStore } from '../store/projects.js';

/** The ownership check of E7, E8 and the read-back endpoints. */
export function projectAccess(projects: ProjectStore) {
  return {
    /** Unknown projects answer like foreign ones, so nobody learns which project ids exist. */
    assertOwn(accountId: string, projectId: string): void {
      if (projects.ownerOf(projectId) !== accountId) {
        throw new HttpError(403, SpecError.forbiddenProject);
      }
    },
  };
}

export type ProjectAccess = ReturnType<typeof projectAccess>;
