import { connect, POSTGRES_ADMIN_URL, TEST_DATABASE_PREFIX } from './helpers/test-database.js';
import { postgresUnreachable } from './postgres-reachable.js';

/** Whether the process that created a test database still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Before the postgres project: the cluster must answer (vitest.config.ts leaves the project out on
 * a developer machine without PostgreSQL; with CI set it is kept, and fails here, loudly). Then
 * the databases earlier runs left behind (a test process killed before its `drop`) are dropped:
 * only those whose creating process is gone, since other test runs may share the cluster.
 */
export default async function setup(): Promise<void> {
  const why = await postgresUnreachable(POSTGRES_ADMIN_URL);
  if (why !== undefined) {
    throw new Error(
      `PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL} (${why}); the postgres tests cannot run. ` +
        `Start it: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`,
    );
  }
  const admin = connect(POSTGRES_ADMIN_URL);
  try {
    const names = (await admin.unsafe(
      `SELECT datname FROM pg_database WHERE datname LIKE '${TEST_DATABASE_PREFIX}%'`,
    )) as unknown as { datname: string }[];
    for (const { datname } of names) {
      const pid = Number(datname.slice(TEST_DATABASE_PREFIX.length).split('_')[0]);
      if (Number.isInteger(pid) && !alive(pid)) {
        await admin.unsafe(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      }
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
}
