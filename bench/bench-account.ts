/**
 * The setup the single-server benchmarks share: a server process on a new SQLite database in a
 * folder of the bench's own (or on DATABASE_URL), and one account with one project in it.
 */
import { join } from 'node:path';
import { type ServerProcess, startServerProcess } from '../test/helpers/process.js';

/** The admin token the benchmarks' servers are started with. */
export const ADMIN = 'bench-admin-token-0123456789';

/** The backend the figures are of, as the benchmarks print it. */
export const benchBackend = () => (process.env.DATABASE_URL ? 'postgres' : 'sqlite');

/** The built server on DATABASE_URL when it is set, else on `dir`/stats.db. */
export function startBenchServer(dir: string): Promise<ServerProcess> {
  const env: Record<string, string> = { ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' };
  if (process.env.DATABASE_URL) env.DATABASE_URL = process.env.DATABASE_URL;
  else env.DATABASE_PATH = join(dir, 'stats.db');
  return startServerProcess(env);
}

/** A new account 'bench' with a project 'b', through the admin API: its key and the project. */
export async function createBenchProject(url: string) {
  const admin = (path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((res) => res.json() as Promise<Record<string, string>>);
  const { accountId, apiKey } = await admin('/admin/accounts', { label: 'bench' });
  const { id: projectId } = await admin(`/admin/accounts/${accountId}/projects`, { name: 'b' });
  return { apiKey: apiKey as string, projectId: projectId as string };
}
