import type { DisplayNameResponse, UpdateDisplayNameResponse } from '../contract/account.js';
import { OwnError, SpecError } from '../contract/errors.js';
import { isJsonObject } from '../contract/json.js';
import type { Commits } from '../db/commits.js';
import { judgeDisplayName } from '../domain/display-name.js';
import { HttpError } from '../errors.js';
import type { Stores } from '../store/index.js';
import type { KeyedLock } from './keyed-lock.js';

export interface DisplayNameDeps {
  commits: Commits;
  stores: Stores;
  mailDomain: string;
  /** Whether an external forwarding provider holds aliases (then a rename removes the old one). */
  removeOldAlias: boolean;
  lock: KeyedLock;
}

/** E5: set or change the display name, which is also the local part of the mail alias. */
export function displayNameService({
  commits,
  stores,
  mailDomain,
  removeOldAlias,
  lock,
}: DisplayNameDeps) {
  const aliasOf = (name: string) => `${name}@${mailDomain}`;

  /** Renames unless another account holds the name; false when it is taken. */
  const rename = (accountId: string, name: string): boolean => {
    const owner = stores.profiles.ownerOfName(name);
    if (owner !== undefined) return owner === accountId;
    const current = stores.profiles.get(accountId);
    stores.profiles.setDisplayName(accountId, name);
    if (current?.forwardingEnabled) {
      // The alias changes, so forwarding to the old one stops; the user enables it again.
      stores.profiles.setForwarding(accountId, false, '');
      if (removeOldAlias) {
        stores.outbox.enqueue({ kind: 'forwarding-remove-alias', alias: current.displayName });
      }
    }
    return true;
  };

  return {
    get(accountId: string): DisplayNameResponse {
      const name = stores.profiles.get(accountId)?.displayName ?? null;
      return { display_name: name, alias: name === null ? null : aliasOf(name) };
    },

    update(accountId: string, body: unknown): Promise<UpdateDisplayNameResponse> {
      if (!isJsonObject(body) || typeof body.display_name !== 'string') {
        throw new HttpError(400, OwnError.displayNameMissing);
      }
      if (Object.keys(body).length !== 1) throw new HttpError(400, SpecError.invalidBody);
      const verdict = judgeDisplayName(body.display_name);
      if (!verdict.ok) {
        throw new HttpError(
          400,
          verdict.reason === 'reserved' ? OwnError.displayNameReserved : OwnError.displayNameLength,
        );
      }
      const name = verdict.name;
      // Under the account's lock, so a rename never interleaves with an E2 provider call.
      return lock.run(accountId, async () => {
        if (!(await commits.run(() => rename(accountId, name)))) {
          throw new HttpError(409, SpecError.displayNameTaken);
        }
        return { success: true, display_name: name, alias: aliasOf(name) };
      });
    },
  };
}

export type DisplayNameService = ReturnType<typeof displayNameService>;
