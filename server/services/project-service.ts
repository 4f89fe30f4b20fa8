import type { Project } from '../../contract/projects.js';
import type { Storage } from '../storage/storage.js';

/** E6: the caller's projects. */
export function projectService(storage: Storage) {
  return {
    list: (accountId: string): Promise<Project[]> => storage.projects.list(accountId),
  };
}

export type ProjectService = ReturnType<typeof projectService>;
