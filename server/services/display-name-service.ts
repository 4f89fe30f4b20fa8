import type { DisplayNameResponse, UpdateDisplayNameResponse } from '../../contract/account.js';
import { judgeDisplayName } from '../domain/display-name.js';
import { Conflict, Invalid } from '../domain/domain-errors.js';
import type { Repositories, Storage } from '../storage/storage.js';

export interface DisplayNameOptions {
  mailDomain: string;
  /** Whether an external forwarding provider holds aliases (then a rename removes the old one). */
  removeOldAlias: boolean;
}

/** E5: set or change the display name, which is also the local part of the mail alias. */
export function displayNameService(
  storage: Storage,
  { mailDomain, removeOldAlias }: DisplayNameOptions,
) {
  const aliasOf = (name: string) => `${name}@${mailDomain}`;

  /** Renames unless another account holds the name; false when it is taken. */
  async function rename(tx: Repositories, accountId: string, name: string): Promise<boolean> {
    const current = await tx.profiles.get(accountId);
    if (current?.displayName === name) return true;
    if (!(await tx.profiles.setDisplayName(accountId, name))) return false;
    if (current?.forwardingEnabled) {
      // The alias changes, so forwarding to the old one stops; the user enables it again.
      await tx.profiles.setForwarding(accountId, false, '');
      if (removeOldAlias) {
        await tx.outbox.enqueue({ kind: 'forwarding-remove-alias', alias: current.displayName });
      }
    }
    return true;
  }

  return {
    async get(accountId: string): Promise<DisplayNameResponse> {
      const name = (await storage.profiles.get(accountId))?.displayName ?? null;
      return { display_name: name, alias: name === null ? null : aliasOf(name) };
    },

    /** `requested` is normalised first (see `judgeDisplayName`). */
    update(accountId: string, requested: string): Promise<UpdateDisplayNameResponse> {
      const verdict = judgeDisplayName(requested);
      if (!verdict.ok) {
        throw new Invalid(
          verdict.reason === 'reserved' ? 'display-name-reserved' : 'display-name-length',
        );
      }
      const name = verdict.name;
      // Under the account's lock, so a rename never interleaves with an E2 provider call.
      return storage.lock(`account:${accountId}`, async () => {
        if (!(await storage.transaction((tx) => rename(tx, accountId, name)))) {
          throw new Conflict('display-name-taken');
        }
        return { success: true, display_name: name, alias: aliasOf(name) };
      });
    },
  };
}

export type DisplayNameService = ReturnType<typeof displayNameService>;
