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
  /** When it was measured (ms since the epoch). */
  measuredAt: number;
}

type Caller = Pick<KeyOwner, 'accountId' | 'projectIds'>;

/** A measurement older than this is measured again, in the background, when a page shows it. */
export const USE_MAX_AGE_MS = 10 * 60_000;

/**
 * Each project's rows and its share of the record tables' bytes, measured in the background and
 * kept in this process's memory: counting a project's rows reads its records' index entries (256
 * ms at 1 M records), which no page should wait for. A page shows the last measurement with its
 * time, or none yet, and asks for a new one when that is missing, older than USE_MAX_AGE_MS, or
 * outdated by a change (a pin, a retention sweep that deleted records). Measurements run one
 * project after another, each project queued once.
 */
export function storageUseService(
  storage: Storage,
  access: ProjectAccess,
  options: { maxAgeMs?: number; onError?: (error: unknown) => void } = {},
) {
  const maxAgeMs = options.maxAgeMs ?? USE_MAX_AGE_MS;
  const measured = new Map<string, ProjectUse>();
  /** Measured before a change: shown until measured again. */
  const outdated = new Set<string>();
  /** Queued or being measured. */
  const queued = new Set<string>();
  let work: Promise<void> = Promise.resolve();

  async function measure(projectIds: string[]): Promise<void> {
    try {
      const sizes: Record<UseTable, TableSize> = await storage.use.tableSizes();
      for (const projectId of projectIds) {
        outdated.delete(projectId);
        const rows = await storage.use.projectRows(projectId);
        measured.set(projectId, {
          projectId,
          events: rows.events,
          metrics: rows.metrics,
          testResults: rows.test_results,
          pinned: rows.pinned,
          bytes: estimatedBytes(rows, sizes),
          measuredAt: Date.now(),
        });
      }
    } finally {
      for (const projectId of projectIds) queued.delete(projectId);
    }
  }

  /** The measurements of `projectIds` as they are; those due are queued for measuring. */
  function shown(projectIds: string[]): (ProjectUse | undefined)[] {
    const now = Date.now();
    const due = projectIds.filter((id) => {
      if (queued.has(id)) return false;
      const use = measured.get(id);
      return use === undefined || outdated.has(id) || now - use.measuredAt >= maxAgeMs;
    });
    if (due.length > 0) {
      for (const id of due) queued.add(id);
      work = work.then(() => measure(due)).catch((error) => options.onError?.(error));
    }
    return projectIds.map((id) => measured.get(id));
  }

  return {
    /** Every project of the account that was measured (the others are being measured). */
    async ofAccount(accountId: string): Promise<ProjectUse[]> {
      const projects = await storage.projects.list(accountId);
      return shown(projects.map((p) => p.id)).filter((use) => use !== undefined);
    },

    /** The project's last measurement; undefined while it is measured for the first time. */
    async ofProject(caller: Caller, projectId: string): Promise<ProjectUse | undefined> {
      await access.assertOwn(caller, projectId);
      return shown([projectId])[0];
    },

    /** The project's records changed (every project's: none named): measure again when shown. */
    outdate(projectId?: string): void {
      for (const id of projectId === undefined ? measured.keys() : [projectId]) outdated.add(id);
    },

    /** Resolves when the measurements queued so far are done (tests; the app's close). */
    settled: (): Promise<void> => work,
  };
}

export type StorageUseService = ReturnType<typeof storageUseService>;
