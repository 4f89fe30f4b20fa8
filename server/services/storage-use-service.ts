import type { KeyOwner, Storage } from '../storage/storage.js';
import { estimatedBytes, type TableSize, type UseTable } from '../storage/storage-use.js';
import type { ProjectAccess } from './project-access.js';

/** A project's storage use as the dashboard shows it (docs/operations.md, Storage use). */
export interface ProjectUse {
  projectId: string;
  events: number;
  metrics: number;
  testResults: number;
  /** Pinned events and metrics: retention never deletes them. */
  pinned: number;
  /** An estimate of its raw records' bytes on disk, indexes included. */
  bytes: number;
}

type Caller = Pick<KeyOwner, 'accountId' | 'projectIds'>;

/** Each project's rows and its share of the record tables' bytes. */
export function storageUseService(storage: Storage, access: ProjectAccess) {
  async function useOf(projectId: string, sizes: Record<UseTable, TableSize>): Promise<ProjectUse> {
    const rows = await storage.use.projectRows(projectId);
    return {
      projectId,
      events: rows.events,
      metrics: rows.metrics,
      testResults: rows.test_results,
      pinned: rows.pinned,
      bytes: estimatedBytes(rows, sizes),
    };
  }

  return {
    /** Every project of the account, the table sizes read once. */
    async ofAccount(accountId: string): Promise<ProjectUse[]> {
      const projects = await storage.projects.list(accountId);
      if (projects.length === 0) return [];
      const sizes = await storage.use.tableSizes();
      const uses: ProjectUse[] = [];
      for (const project of projects) uses.push(await useOf(project.id, sizes));
      return uses;
    },

    async ofProject(caller: Caller, projectId: string): Promise<ProjectUse> {
      await access.assertOwn(caller, projectId);
      return useOf(projectId, await storage.use.tableSizes());
    },
  };
}

export type StorageUseService = ReturnType<typeof storageUseService>;
