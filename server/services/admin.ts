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

/** How a caller makes writes durable: the server's group commit, or the CLI's plain FULL sync. */
export type Write = <T>(work: () => T) => Promise<T>;

/**
 * Account, key and project administration, shared by the HTTP admin API and the offline CLI.
 * `revoke` differs between them: the server's also empties its key cache.
 */
export function adminService(stores: Stores, write: Write, revoke: (keyId: string) => boolean) {
  function assertAccount(accountId: string): void {
    if (!stores.accounts.exists(accountId)) throw new HttpError(404, 'Account not found.');
  }

  return {
    /** The spec'd `{ accountId, apiKey }`, plus `keyId` so the first key can be rotated. */
    async createAccount(
      label?: unknown,
    ): Promise<{ accountId: string; apiKey: string; keyId: string }> {
      const text = optionalText(label, 'label', MAX_LABEL);
      const { accountId, apiKey, keyId } = await write(() => stores.accounts.createAccount(text));
      return { accountId, apiKey, keyId };
    },

    async createKey(accountId: string): Promise<IssuedKey> {
      assertAccount(accountId);
      return write(() => stores.accounts.createKey(accountId));
    },

    async revokeKey(keyId: string): Promise<void> {
      if (!(await write(() => revoke(keyId)))) throw new HttpError(404, 'Key not found.');
    },

    async createProject(accountId: string, name: unknown): Promise<Project> {
      const projectName = optionalText(name, 'name', MAX_PROJECT_NAME);
      if (projectName === null) throw new HttpError(400, 'name is required.');
      assertAccount(accountId);
      return write(() => stores.projects.create(accountId, projectName));
    },

    listProjects(accountId: string): Project[] {
      assertAccount(accountId);
      return stores.projects.list(accountId);
    },
  };
}

export type AdminService = ReturnType<typeof adminService>;
