import postgres from 'postgres';

/**
 * Whether the PostgreSQL cluster the postgres tests use answers: undefined when it does, else why
 * not (in words an operator can act on).
 */
export async function postgresUnreachable(url: string): Promise<string | undefined> {
  const sql = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`SELECT 1`;
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}
