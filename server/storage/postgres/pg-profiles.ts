import { nowIso } from '../../domain/time.js';
import type { Profile, ProfileRepository } from '../storage.js';
import { isUniqueViolation, recoverable } from './pg-atomic.js';
import type { Sql } from './pg-database.js';
import { Channel } from './pg-notifications.js';

/**
 * Account profiles: display name (the alias) and forwarding state. What public pages show:
 * each change notifies every replica on commit, and `changed` runs once it is written.
 */
export function pgProfiles(sql: Sql, changed: () => void): ProfileRepository {
  return {
    async get(accountId): Promise<Profile | undefined> {
      const [row] = await sql<Profile[]>`
        SELECT display_name AS "displayName", forwarding_enabled AS "forwardingEnabled",
               forwarding_email AS "forwardingEmail"
          FROM profiles WHERE account_id = ${accountId}`;
      return row && { ...row };
    },

    async isForwarding(name) {
      const rows = await sql`
        SELECT 1 FROM profiles WHERE display_name = ${name} AND forwarding_enabled`;
      return rows.length > 0;
    },

    // The unique index on display_name decides between two accounts taking one name at once,
    // whichever replicas they write through: the later one fails, changing nothing.
    async setDisplayName(accountId, name) {
      try {
        await recoverable(
          sql,
          (db) => db`
            WITH saved AS (
              INSERT INTO profiles (account_id, display_name, updated_at)
              VALUES (${accountId}, ${name}, ${nowIso()})
              ON CONFLICT (account_id) DO UPDATE SET display_name = EXCLUDED.display_name,
                                                     updated_at = EXCLUDED.updated_at
              RETURNING 1)
            SELECT pg_notify(${Channel.pages}, '') FROM saved`,
        );
      } catch (error) {
        if (isUniqueViolation(error, 'profiles_display_name_key')) return false;
        throw error;
      }
      changed();
      return true;
    },

    async setForwarding(accountId, enabled, email) {
      await sql`
        WITH saved AS (
          UPDATE profiles SET forwarding_enabled = ${enabled}, forwarding_email = ${email},
                              updated_at = ${nowIso()}
           WHERE account_id = ${accountId} RETURNING 1)
        SELECT pg_notify(${Channel.pages}, '') FROM saved`;
      changed();
    },
  };
}
