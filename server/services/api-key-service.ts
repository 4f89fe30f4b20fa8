import type { CreateApiKeyResponse } from '../../contract/api-keys.js';
import { digestApiKey, generateApiKey } from '../domain/api-keys.js';
import { Forbidden, NotFound } from '../domain/domain-errors.js';
import type { KeyInfo, NewKey, Repositories, Storage } from '../storage/storage.js';
import type { Credentials } from './credentials.js';

/** What a new key may do; an account's first key, and the admin's by default, is full. */
export type KeySpec = Omit<NewKey, 'digest'>;

export const FULL_KEY: KeySpec = { label: null, scope: 'full', projectIds: null };

/** Accounts and keys: a key is shown once, when it is created, and stored only as its hash. */
export function apiKeyService(storage: Storage, credentials: Credentials) {
  return {
    /**
     * A new account with its first (full) key: `apiKey` when given (bootstrap), else a generated
     * one. `repositories` is the transaction to join, when there is one.
     */
    async createAccount(
      label: string | null,
      apiKey = generateApiKey(),
      repositories: Repositories = storage,
    ) {
      const { accountId, keyId } = await repositories.accounts.create(label, {
        ...FULL_KEY,
        digest: digestApiKey(apiKey),
      });
      return { accountId, apiKey, keyId };
    },

    /** A new key of the account; an ingest key's projects must all be the account's. */
    async createKey(accountId: string, spec: KeySpec = FULL_KEY): Promise<CreateApiKeyResponse> {
      if (!(await storage.accounts.exists(accountId))) throw new NotFound('account');
      if (spec.projectIds) {
        const own = new Set((await storage.projects.list(accountId)).map((p) => p.id));
        if (!spec.projectIds.every((id) => own.has(id))) throw new Forbidden('project');
      }
      const apiKey = generateApiKey();
      const keyId = await storage.accounts.createKey(accountId, {
        ...spec,
        projectIds: spec.projectIds === null ? null : [...new Set(spec.projectIds)],
        digest: digestApiKey(apiKey),
      });
      return { keyId, apiKey, label: spec.label, scope: spec.scope, projectIds: spec.projectIds };
    },

    list: (accountId: string): Promise<KeyInfo[]> => storage.accounts.listKeys(accountId),

    /** The admin's revocation, of any key; revoking twice is fine. */
    async revoke(keyId: string): Promise<void> {
      const revoked = await storage.accounts.revokeKey(keyId);
      credentials.forget();
      if (!revoked) throw new NotFound('key');
    },

    /** An account revoking one of its own keys (the one it is calling with included). */
    async revokeOwn(accountId: string, keyId: string): Promise<void> {
      const revoked = await storage.accounts.revokeKey(keyId, accountId);
      credentials.forget();
      if (!revoked) throw new NotFound('api-key');
    },

    /** Writes when keys were last used, once a minute, instead of a write per request. */
    async flushKeyUse(): Promise<void> {
      const uses = credentials.takeUses();
      if (uses.length > 0) await storage.accounts.recordKeyUse(uses);
    },
  };
}

export type ApiKeyService = ReturnType<typeof apiKeyService>;
