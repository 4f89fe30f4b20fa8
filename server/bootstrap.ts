import type { Stores } from './store/index.js';

export interface Bootstrapped {
  accountId: string;
  projectId: string;
  /** Only when the key was generated here: the one time it is ever shown. */
  generatedApiKey: string | undefined;
}

/**
 * On an empty database, creates one account with a project named `default`, so the quick-start
 * command alone gives a usable server. The key is BOOTSTRAP_API_KEY when set, else generated.
 */
export function bootstrapIfEmpty(
  stores: Stores,
  bootstrapApiKey: string | undefined,
): Bootstrapped | undefined {
  if (stores.accounts.count() > 0) return undefined;
  const account = stores.accounts.createAccount('default', bootstrapApiKey);
  const project = stores.projects.create(account.accountId, 'default');
  return {
    accountId: account.accountId,
    projectId: project.id,
    generatedApiKey: bootstrapApiKey === undefined ? account.apiKey : undefined,
  };
}
