import type { SlackInstallRepository, SlackInstallState } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const slackInstallWrites = ['create', 'take'] as const;

const COLUMNS = `state_hash AS stateHash, session_tag AS sessionTag, account_id AS accountId,
                 project_id AS projectId, redirect_uri AS redirectUri, expires_at AS expiresAt`;

/** Slack installations under way: each state is taken once, by its session, before it expires. */
export function sqliteSlackInstalls(db: Db): Sync<SlackInstallRepository> {
  const purge = db.prepare('DELETE FROM slack_installs WHERE expires_at <= ?');
  const trim = db.prepare(
    `DELETE FROM slack_installs WHERE account_id = ? AND state_hash NOT IN (
       SELECT state_hash FROM slack_installs WHERE account_id = ?
        ORDER BY expires_at DESC LIMIT ?)`,
  );
  const insert = db.prepare(
    `INSERT INTO slack_installs
       (state_hash, session_tag, account_id, project_id, redirect_uri, expires_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const take = db.prepare(
    `DELETE FROM slack_installs WHERE state_hash = ? AND session_tag = ? AND expires_at > ?
     RETURNING ${COLUMNS}`,
  );
  return {
    create(state, now, keepPerAccount) {
      purge.run(now);
      insert.run(
        state.stateHash,
        state.sessionTag,
        state.accountId,
        state.projectId,
        state.redirectUri,
        state.expiresAt,
      );
      trim.run(state.accountId, state.accountId, keepPerAccount);
    },
    take: (stateHash, sessionTag, now) =>
      take.get(stateHash, sessionTag, now) as SlackInstallState | undefined,
  };
}
