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
  /** Per alias: E2's provider calls and the outbox's removals never interleave. */
  aliasLock: KeyedLock;
  log: FastifyBaseLogger;
}

/** E1 and E2: the forwarding state machine of spec part 3. */
export function forwardingService(deps: ForwardingDeps) {
  const { commits, stores, provider, mailDomain, syncContacts, lock, aliasLock, log } = deps;
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

  /**
   * The provider first (if it fails, nothing changes here: 500 with the spec's text), then our
   * record. Should the record fail after the provider changed, the provider is put back, so the
   * two never disagree silently. All of it holds the alias's lock, which a queued removal of the
   * same alias also takes.
   */
  function synchronise(
    alias: string,
    change: () => Promise<void>,
    record: () => void,
    restore: () => Promise<void>,
  ): Promise<void> {
    return aliasLock.run(alias, async () => {
      try {
        await change();
      } catch (error) {
        log.warn({ provider: provider.name, err: error }, 'forwarding provider call failed');
        throw new HttpError(500, SpecError.forwardingSyncFailed);
      }
      try {
        await commits.run(record);
      } catch (error) {
        await restore().catch((undo) =>
          log.error(
            { alias, err: undo },
            'the forwarding provider now disagrees with the database',
          ),
        );
        throw error;
      }
    });
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
        const restore = () =>
          profile.forwardingEnabled
            ? provider.upsertAlias(alias, profile.forwardingEmail)
            : provider.removeAlias(alias);

        if (request.data.enabled) {
          const raw = request.data.email;
          const email = ForwardingEmail.safeParse(typeof raw === 'string' ? raw.trim() : raw);
          if (!email.success) throw new HttpError(400, SpecError.emailRequired);
          await synchronise(
            alias,
            () => provider.upsertAlias(alias, email.data),
            () => enable(accountId, email.data, alias),
            restore,
          );
        } else if (profile.forwardingEnabled) {
          // Disabling keeps the address, so enabling again can show what it was.
          await synchronise(
            alias,
            () => provider.removeAlias(alias),
            () => stores.profiles.setForwarding(accountId, false, profile.forwardingEmail),
            restore,
          );
        }
        return { success: true };
      });
    },
  };
}

export type ForwardingService = ReturnType<typeof forwardingService>;
