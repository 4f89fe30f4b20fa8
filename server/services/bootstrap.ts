import type { Storage } from '../storage/storage.js';
import type { ApiKeyService } from './api-key-service.js';
import type { ProjectService } from './project-service.js';

export interface Bootstrapped {
  accountId: string;
  projectId: string;
  /** Id of the account's first key (what revoking it takes). */
  keyId: string;
  /** Only when the key was generated here: the one time it is ever shown. */
  generatedApiKey: string | undefined;
}

/**
 * On an empty database, creates one account with a project named `default`, so the quick-start
 * command alone gives a usable server. The key is BOOTSTRAP_API_KEY when set, else generated.
 * Under a lock and in one transaction, so servers starting together bootstrap once.
 */
export function bootstrapIfEmpty(
  storage: Storage,
  services: { apiKeys: ApiKeyService; projects: ProjectService },
  bootstrapApiKey: string | undefined,
): Promise<Bootstrapped | undefined> {
  return storage.lock('bootstrap', () =>
    storage.transaction(async (tx) => {
      if ((await tx.accounts.count()) > 0) return undefined;
      const account = await services.apiKeys.createAccount('default', bootstrapApiKey, tx);
      const project = await services.projects.create(account.accountId, 'default', tx);
      return {
        accountId: account.accountId,
        projectId: project.id,
        keyId: account.keyId,
        generatedApiKey: bootstrapApiKey === undefined ? account.apiKey : undefined,
      };
    }),
  );
}
