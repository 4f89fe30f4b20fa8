import type { CreatedAccount, IssuedKey } from '../../contract/admin.js';
import type { Project } from '../../contract/projects.js';
import { NotFound } from '../domain/domain-errors.js';
import type { AccountInfo, KeyInfo, Storage } from '../storage/storage.js';
import type { ApiKeyService, KeySpec } from './api-key-service.js';
import type { ProjectService } from './project-service.js';

/** Account, key and project administration, shared by the HTTP admin API and the offline CLI. */
export function adminService(storage: Storage, keys: ApiKeyService, projects: ProjectService) {
  async function assertAccount(accountId: string): Promise<void> {
    if (!(await storage.accounts.exists(accountId))) throw new NotFound('account');
  }

  return {
    async createAccount(label: string | undefined): Promise<CreatedAccount> {
      return keys.createAccount(label ?? null);
    },

    createKey: (accountId: string, spec?: KeySpec): Promise<IssuedKey> =>
      keys.createKey(accountId, spec),

    revokeKey: (keyId: string): Promise<void> => keys.revoke(keyId),

    async createProject(accountId: string, name: string): Promise<Project> {
      await assertAccount(accountId);
      return projects.create(accountId, name);
    },

    listAccounts: (): Promise<AccountInfo[]> => storage.accounts.list(),

    /** An account's unrevoked keys: ids, labels, prefixes and scopes, never a key or its hash. */
    async listKeys(accountId: string): Promise<KeyInfo[]> {
      await assertAccount(accountId);
      return storage.accounts.listKeys(accountId);
    },

    async listProjects(accountId: string): Promise<Project[]> {
      await assertAccount(accountId);
      return storage.projects.list(accountId);
    },
  };
}

export type AdminService = ReturnType<typeof adminService>;
