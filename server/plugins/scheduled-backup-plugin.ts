import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fp from 'fastify-plugin';
import { backupStamp } from '../storage/backup-error.js';
import { backupSqliteFile } from '../storage/sqlite/sqlite-backup.js';

/** The scheduled backups' names: `stats-20261126T101500Z.db`, in time order when sorted. */
const BACKUP_NAME = /^stats-\d{8}T\d{6}Z\.db$/;

/**
 * BACKUP_DIR, BACKUP_EVERY, BACKUP_KEEP (docs/operations.md, Backup and restore): the SQLite
 * database copied by the same online backup as `npm run admin -- backup`, every BACKUP_EVERY
 * from the start, keeping the newest BACKUP_KEEP copies. A failed backup is logged and tried
 * again at the next turn; it never stops the server.
 */
export const scheduledBackupPlugin = fp(
  async (app) => {
    const settings = app.config.backup;
    if (settings === undefined) return;
    const { dir, everyMs, keep } = settings;
    let running: Promise<void> | undefined;

    const prune = () => {
      const copies = readdirSync(dir)
        .filter((name) => BACKUP_NAME.test(name))
        .sort();
      for (const name of copies.slice(0, Math.max(0, copies.length - keep))) {
        rmSync(join(dir, name), { force: true });
      }
    };
    const backUp = async () => {
      try {
        mkdirSync(dir, { recursive: true });
        const { file, bytes } = await backupSqliteFile(
          app.config.databasePath,
          join(dir, `stats-${backupStamp(new Date())}.db`),
        );
        prune();
        app.logger.info({ file, bytes }, 'backed up the database');
      } catch (error) {
        app.logger.error({ err: error }, 'could not back up the database');
      }
    };
    const turn = () => {
      // One at a time: a backup slower than BACKUP_EVERY is not started twice.
      running ??= backUp().finally(() => {
        running = undefined;
      });
    };

    let timer: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      timer = setInterval(turn, everyMs).unref();
    });
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await running;
    });
  },
  { name: 'scheduled-backup', dependencies: ['storage'] },
);
