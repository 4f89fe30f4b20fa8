import type { FastifyBaseLogger } from 'fastify';
import { SpecError } from '../contract/errors.js';
import {
  ForwardingEmail,
  type ForwardingStatus,
  ToggleForwardingRequest,
} from '../contract/forwarding.js';
import type { Commits } from '../db/commits.js';
import { HttpError } from '../errors.js';
import type { ForwardingProvider } from '../providers/forwarding.js';
import type { Stores } from '../store/index.js';
import type { KeyedLock } from './keyed-lock.js';

export interface ForwardingDeps {
  commits: Commits;
  stores: Stores;
  provider: ForwardingProvider;
  mailDomain: string;
  /** Whether a contacts provider is configured (then enabling queues a contact upsert). */
  syncContacts: boolean;
  lock: KeyedLock;
  log: FastifyBaseLogger;
}

/** E1 and E2: the forwarding state machine of spec part 3. */
export function forwardingService(deps: ForwardingDeps) {
  const { commits, stores, provider, mailDomain, syncContacts, lock, log } = deps;
  /** The profile change and the contact job commit together. */
  const enable = (accountId: string, email: string, displayName: string) => {
    stores.profiles.setForwarding(accountId, true, email);
    if (syncContacts) {
      stores.outbox.enqueue({
        kind: 'contacts-upsert',
        email,
        alias: `${displayName}@${mailDomain}`,
      });
    }
  };

  async function callProvider(action: string, call: () => Promise<void>): Promise<void> {
    try {
      await call();
    } catch (error) {
      log.warn({ provider: provider.name, action, err: error }, 'forwarding provider call failed');
      throw new HttpError(500, SpecError.forwardingSyncFailed);
    }
  }

  return {
    status(accountId: string): ForwardingStatus {
      const profile = stores.profiles.get(accountId);
      return {
        enabled: profile?.forwardingEnabled ?? false,
        email: profile?.forwardingEmail ?? '',
      };
    },

    toggle(accountId: string, body: unknown): Promise<{ success: true }> {
      return lock.run(accountId, async () => {
        // Spec: without a profile E2 fails with 404, whatever the body says.
        const profile = stores.profiles.get(accountId);
        if (!profile) throw new HttpError(404, SpecError.profileNotFound);
        const request = ToggleForwardingRequest.safeParse(body);
        if (!request.success) throw new HttpError(400, SpecError.invalidBody);
        const alias = profile.displayName;

        if (request.data.enabled) {
          const raw = request.data.email;
          const email = ForwardingEmail.safeParse(typeof raw === 'string' ? raw.trim() : raw);
          if (!email.success) throw new HttpError(400, SpecError.emailRequired);
          // The provider first: if it fails, nothing changes here.
          await callProvider('upsert', () => provider.upsertAlias(alias, email.data));
          await commits.run(() => enable(accountId, email.data, alias));
        } else if (profile.forwardingEnabled) {
          await callProvider('remove', () => provider.removeAlias(alias));
          // Disabling keeps the address, so enabling again can show what it was.
          await commits.run(() =>
            stores.profiles.setForwarding(accountId, false, profile.forwardingEmail),
          );
        }
        return { success: true };
      });
    },
  };
}

export type ForwardingService = ReturnType<typeof forwardingService>;
