/**
 * A project's share of the database (docs/operations.md, Storage use): its rows in each table of
 * raw records, and an estimate of their bytes, made the same way on both backends from what each
 * says of its tables: a table's bytes (with its indexes) over its rows, times the project's rows.
 * The statistics cells are not counted (they stay when retention deletes records).
 */

/** The tables of raw records, each counted per project. */
export const USE_TABLES = [
  'events',
  'metrics',
  'test_results',
  'test_runs',
  'test_cases',
  'test_messages',
] as const;
export type UseTable = (typeof USE_TABLES)[number];

export type TableCounts = Record<UseTable, number>;

export interface TableSize {
  /** The table's bytes on disk with its indexes (SQLite: its pages; PostgreSQL: its relations). */
  bytes: number;
  /** Its rows (PostgreSQL: the planner's estimate once it has one). */
  rows: number;
}

export interface ProjectRows extends TableCounts {
  /** Pinned events and metrics (retention never deletes them). */
  pinned: number;
}

export interface StorageUseRepository {
  /** Every record table's size. */
  tableSizes(): Promise<Record<UseTable, TableSize>>;
  /** The project's rows in each record table. */
  projectRows(projectId: string): Promise<ProjectRows>;
}

/** The project's bytes: each table's bytes per row times its rows there (a share at most 1). */
export function estimatedBytes(rows: TableCounts, sizes: Record<UseTable, TableSize>): number {
  let bytes = 0;
  for (const table of USE_TABLES) {
    const size = sizes[table];
    const counted = rows[table];
    if (counted === 0 || size.bytes === 0) continue;
    bytes += size.bytes * Math.min(1, counted / Math.max(size.rows, counted));
  }
  return Math.round(bytes);
}
