/**
 * A database whose schema is newer than this server's migrations was written by a newer version
 * of ci-stats. Starting on it would mean running old SQL on tables it does not know: the server
 * refuses, in one line that says what to do, and changes nothing.
 */
export class NewerSchemaError extends Error {
  constructor(
    readonly current: number,
    readonly newest: number,
  ) {
    super(
      `database schema version ${current} was written by a newer version of ci-stats (this one knows up to ${newest}); refusing to start: run that version or a later one, or restore the backup taken before the upgrade`,
    );
    this.name = 'NewerSchemaError';
  }
}

/** The highest version among `migrations` (0 for none). */
export function newestVersion(migrations: readonly { version: number }[]): number {
  return Math.max(0, ...migrations.map((m) => m.version));
}

/** The migrations a database at `current` (null: no schema yet) still needs, in order. */
export function pendingMigrations<M extends { version: number }>(
  current: number | null,
  migrations: readonly M[],
): M[] {
  const newest = newestVersion(migrations);
  if (current !== null && current > newest) throw new NewerSchemaError(current, newest);
  return [...migrations]
    .filter((m) => current === null || m.version > current)
    .sort((a, b) => a.version - b.version);
}
