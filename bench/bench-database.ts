import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/**
 * Runs `work` on a PostgreSQL database of its own, created in the cluster `adminUrl` names
 * (BENCH_DATABASE_URL) and dropped afterwards, whatever happens.
 */
export async function withBenchDatabase<T>(
  adminUrl: string,
  work: (url: string) => Promise<T>,
  prefix = 'ingest_bench',
): Promise<T> {
  const name = `${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    try {
      return await work(url.toString());
    } finally {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  } finally {
    await admin.end({ timeout: 1 });
  }
}
