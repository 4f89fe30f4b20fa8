import { statfs } from 'node:fs/promises';
import { StorageFull, StorageUnavailable } from '../../domain/domain-errors.js';
import { FlushFailed } from './group-commit.js';

/**
 * SQLite's "database or disk is full" (what ENOSPC becomes) as the domain's StorageFull; a write
 * refused since a flush of the log failed as StorageUnavailable until a restart.
 */
export function translatedSqliteError(error: unknown): unknown {
  if (error instanceof FlushFailed) return new StorageUnavailable('flush-failed', { cause: error });
  return (error as { code?: unknown } | null)?.code === 'SQLITE_FULL'
    ? new StorageFull('storage-full')
    : error;
}

/**
 * Room, after a full disk, to call it over: a whole WAL at SQLite's default checkpoint size (1000
 * pages of 4 KiB) and as much again for the checkpoint to copy it into the file.
 */
export const ROOM_AGAIN_BYTES = 8 * 1024 * 1024;

/** Whether the file system holding `directory` has room for the database to grow again. */
export async function hasRoom(directory: string): Promise<boolean> {
  const stats = await statfs(directory);
  return stats.bavail * stats.bsize >= ROOM_AGAIN_BYTES;
}
