import type { Db } from '../db/database.js';
import { nowIso } from '../domain/time.js';

export interface Profile {
  displayName: string;
  forwardingEnabled: boolean;
  forwardingEmail: string;
}

interface ProfileRow {
  displayName: string;
  forwardingEnabled: 0 | 1;
  forwardingEmail: string;
}

/** Account profiles: display name (the alias) and forwarding state. */
export function profileStore(db: Db) {
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
    get(accountId: string): Profile | undefined {
      const row = byAccount.get(accountId) as ProfileRow | undefined;
      return row && { ...row, forwardingEnabled: row.forwardingEnabled === 1 };
    },

    /** Whether some account forwards mail for this alias now. */
    isForwarding: (name: string): boolean => forwardingOn.get(name) !== undefined,

    /** The account holding a display name, if any. */
    ownerOfName: (name: string): string | undefined => nameOwner.get(name) as string | undefined,

    /** Creates the profile or renames it; forwarding is left as it is. */
    setDisplayName(accountId: string, name: string): void {
      upsertName.run(accountId, name, nowIso());
    },

    setForwarding(accountId: string, enabled: boolean, email: string): void {
      updateForwarding.run(enabled ? 1 : 0, email, nowIso(), accountId);
    },
  };
}

export type ProfileStore = ReturnType<typeof profileStore>;
