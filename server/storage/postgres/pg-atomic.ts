import type { Sql, TransactionSql } from './pg-database.js';

/**
 * Repositories are written against `Sql`, and are handed either the pool or a transaction of
 * `pool.begin`; these two run a piece of work atomically in either case.
 */
const transactionOf = (sql: Sql): TransactionSql | undefined =>
  'savepoint' in sql ? (sql as unknown as TransactionSql) : undefined;

/** Runs `work` in one transaction: its own on the pool, the caller's inside a transaction. */
export function atomically<T>(sql: Sql, work: (tx: Sql) => Promise<T>): Promise<T> {
  if (transactionOf(sql)) return work(sql);
  return sql.begin((tx) => work(tx as unknown as Sql)) as Promise<T>;
}

/**
 * Runs `work` so that its failure can be caught and the caller carry on: on the pool as it is
 * (a statement fails alone), inside a transaction in a savepoint (a failed statement would
 * otherwise abort the whole transaction).
 */
export function recoverable<T>(sql: Sql, work: (sql: Sql) => Promise<T>): Promise<T> {
  const tx = transactionOf(sql);
  if (!tx) return work(sql);
  return tx.savepoint((inner) => work(inner as unknown as Sql)) as Promise<T>;
}

/** PostgreSQL's unique_violation, on the constraint named (e.g. `profiles_display_name_key`). */
export const isUniqueViolation = (error: unknown, constraint: string): boolean =>
  (error as { code?: string }).code === '23505' &&
  (error as { constraint_name?: string }).constraint_name === constraint;
