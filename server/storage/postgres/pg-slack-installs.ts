import type { SlackInstallRepository, SlackInstallState } from '../storage.js';
import type { Sql } from './pg-database.js';

/** Slack installations under way: each state is taken once, by its session, before it expires. */
export function pgSlackInstalls(sql: Sql): SlackInstallRepository {
  return {
    async create(state, now, keepPerAccount) {
      await sql`DELETE FROM slack_installs WHERE expires_at <= ${now}`;
      await sql`
        INSERT INTO slack_installs
          (state_hash, session_tag, account_id, project_id, redirect_uri, expires_at)
        VALUES (${state.stateHash}, ${state.sessionTag}, ${state.accountId}, ${state.projectId},
                ${state.redirectUri}, ${state.expiresAt})`;
      await sql`
        DELETE FROM slack_installs WHERE account_id = ${state.accountId} AND state_hash NOT IN (
          SELECT state_hash FROM slack_installs WHERE account_id = ${state.accountId}
           ORDER BY expires_at DESC LIMIT ${keepPerAccount})`;
    },

    async take(stateHash, sessionTag, now) {
      const [row] = await sql<SlackInstallState[]>`
        DELETE FROM slack_installs
         WHERE state_hash = ${stateHash} AND session_tag = ${sessionTag} AND expires_at > ${now}
        RETURNING state_hash AS "stateHash", session_tag AS "sessionTag",
                  account_id AS "accountId", project_id AS "projectId",
                  redirect_uri AS "redirectUri", expires_at AS "expiresAt"`;
      return row && { ...row, expiresAt: Number(row.expiresAt) };
    },
  };
}
