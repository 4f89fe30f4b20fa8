import { digestApiKey, generateApiKey } from '../domain/api-keys.js';
import { NotFound } from '../domain/domain-errors.js';
import type { Repositories, Storage } from '../storage/storage.js';
import type { Credentials } from './credentials.js';

/** Accounts and keys: a key is shown once, when it is created, and stored only as its hash. */
export function apiKeyService(storage: Storage, credentials: Credentials) {
  return {
    /**
     * A new account with its first key: `apiKey` when given (bootstrap), else a generated one.
     * `repositories` is the transaction to join, when there is one.
     */
    async createAccount(
      label: string | null,
      apiKey = generateApiKey(),
      repositories: Repositories = storage,
    ) {
      const { accountId, keyId } = await repositories.accounts.create(label, digestApiKey(apiKey));
      return { accountId, apiKey, keyId };
    },

    async createKey(accountId: string) {
      if (!(await storage.accounts.exists(accountId))) throw new NotFound('account');
      const apiKey = generateApiKey();
      return { keyId: await storage.accounts.createKey(accountId, digestApiKey(apiKey)), apiKey };
    },

    async revoke(keyId: string): Promise<void> {
      const revoked = await storage.accounts.revokeKey(keyId);
      credentials.forget();
      if (!revoked) throw new NotFound('key');
    },
  };
}

export type ApiKeyService = ReturnType<typeof apiKeyService>;
