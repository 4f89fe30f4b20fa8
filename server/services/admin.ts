import type { Project } from '../contract/projects.js';
import { HttpError } from '../errors.js';
import type { IssuedKey } from '../store/accounts.js';
import type { Stores } from '../store/index.js';

const MAX_LABEL = 100;
const MAX_PROJECT_NAME = 100;

/** Optional text field of an admin request: trimmed, bounded. */
function optionalText(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim().length > max) {
    throw new HttpError(400, `${field} must be a string of at most ${max} characters.`);
  }
  return value.trim() || null;
}

/**
 * Account, key and project administration, shared by the HTTP admin API and the offline CLI.
 * `revoke` differs between them: the server's also empties its key cache.
 */
export function adminService(stores: Stores, revoke: (keyId: string) => boolean) {
  function assertAccount(accountId: string): void {
    if (!stores.accounts.exists(accountId)) throw new HttpError(404, 'Account not found.');
  }

  return {
    /** The spec'd `{ accountId, apiKey }`, plus `keyId` so the first key can be rotated. */
    createAccount(label?: unknown): { accountId: string; apiKey: string; keyId: string } {
      const { accountId, apiKey, keyId } = stores.accounts.createAccount(
        optionalText(label, 'label', MAX_LABEL),
      );
      return { accountId, apiKey, keyId };
    },

    createKey(accountId: string): IssuedKey {
      assertAccount(accountId);
      return stores.accounts.createKey(accountId);
    },

    revokeKey(keyId: string): void {
      if (!revoke(keyId)) throw new HttpError(404, 'Key not found.');
    },

    createProject(accountId: string, name: unknown): Project {
      const projectName = optionalText(name, 'name', MAX_PROJECT_NAME);
      if (projectName === null) throw new HttpError(400, 'name is required.');
      assertAccount(accountId);
      return stores.projects.create(accountId, projectName);
    },

    listProjects(accountId: string): Project[] {
      assertAccount(accountId);
      return stores.projects.list(accountId);
    },
  };
}

export type AdminService = ReturnType<typeof adminService>;
