import { nowIso } from '../../domain/time.js';
import type { Profile, ProfileRepository } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

interface ProfileRow {
  displayName: string;
  forwardingEnabled: 0 | 1;
  forwardingEmail: string;
}

export const profileWrites = ['setDisplayName', 'setForwarding'] as const;

/** Account profiles: display name (the alias) and forwarding state. */
export function sqliteProfiles(db: Db, changed: () => void): Sync<ProfileRepository> {
  const byAccount = db.prepare(
    `SELECT display_name AS displayName, forwarding_enabled AS forwardingEnabled,
            forwarding_email AS forwardingEmail
       FROM profiles WHERE account_id = ?`,
  );
  const nameOwner = db.prepare('SELECT account_id FROM profiles WHERE display_name = ?').pluck();
  const forwardingOn = db
    .prepare('SELECT 1 FROM profiles WHERE display_name = ? AND forwarding_enabled = 1')
    .pluck();
  const upsertName = db.prepare(
    `INSERT INTO profiles (account_id, display_name, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (account_id) DO UPDATE SET display_name = excluded.display_name,
                                            updated_at = excluded.updated_at`,
  );
  const updateForwarding = db.prepare(
    `UPDATE profiles SET forwarding_enabled = ?, forwarding_email = ?, updated_at = ?
      WHERE account_id = ?`,
  );

  return {
    get(accountId): Profile | undefined {
      const row = byAccount.get(accountId) as ProfileRow | undefined;
      return row && { ...row, forwardingEnabled: row.forwardingEnabled === 1 };
    },

    isForwarding: (name) => forwardingOn.get(name) !== undefined,

    // A write of the group commit: nothing else runs between the check and the upsert.
    setDisplayName(accountId, name) {
      const owner = nameOwner.get(name) as string | undefined;
      if (owner !== undefined && owner !== accountId) return false;
      changed();
      upsertName.run(accountId, name, nowIso());
      return true;
    },

    setForwarding(accountId, enabled, email) {
      changed();
      updateForwarding.run(enabled ? 1 : 0, email, nowIso(), accountId);
    },
  };
}
