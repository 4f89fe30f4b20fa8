import { StorageFull } from '../domain/domain-errors.js';

/**
 * What a storage knows of its disk's space, for /healthz: full from the moment a write fails for
 * lack of space until `recovered` says there is room again (the backend's own test: free space on
 * SQLite's file system, a write on PostgreSQL). A small write may still succeed meanwhile (SQLite
 * reuses the WAL space a failed write left), so success alone does not end it.
 */
export class SpaceWatch {
  #full = false;

  constructor(private readonly recovered: () => Promise<boolean>) {}

  /** Passes an error on, noting a full disk. */
  readonly saw = (error: unknown): unknown => {
    if (error instanceof StorageFull) this.#full = true;
    return error;
  };

  /** Whether writes fail for lack of space, as far as this process can tell. */
  async full(): Promise<boolean> {
    if (this.#full && (await this.recovered())) this.#full = false;
    return this.#full;
  }
}
