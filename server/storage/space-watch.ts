import { StorageFull } from '../domain/domain-errors.js';

/**
 * What a storage knows of its disk's space, for /healthz: full from the moment a write fails for
 * lack of space until `recovered` says there is room again (the backend's own test: free space on
 * SQLite's file system; on PostgreSQL, whose disk the server cannot see, a write, tried only once
 * `quietMs` passed without another write failing so). A small write may succeed meanwhile (SQLite
 * reuses the WAL space a failed write left, PostgreSQL the room left in a page), so success alone
 * does not end it.
 */
export class SpaceWatch {
  /** When a write last failed for lack of space; undefined once there is room again. */
  #fullSince: number | undefined;

  constructor(
    private readonly recovered: () => Promise<boolean>,
    private readonly quietMs = 0,
  ) {}

  /** Passes an error on, noting a full disk. */
  readonly saw = (error: unknown): unknown => {
    if (error instanceof StorageFull) this.#fullSince = Date.now();
    return error;
  };

  /** Whether writes fail for lack of space, as far as this process can tell. */
  async full(): Promise<boolean> {
    if (this.#fullSince === undefined) return false;
    if (Date.now() - this.#fullSince < this.quietMs) return true;
    if (await this.recovered()) this.#fullSince = undefined;
    return this.#fullSince !== undefined;
  }
}
