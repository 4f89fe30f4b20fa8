import type {
  ForwardingStatus,
  ToggleForwardingRequest,
  ToggleForwardingResponse,
} from '../../contract/forwarding.js';
import { NotFound, Unavailable } from '../domain/domain-errors.js';
import type { ForwardingProvider } from '../providers/forwarding-provider.js';
import type { Profile, Repositories, Storage } from '../storage/storage.js';
import type { Logger } from './logger.js';

export interface ForwardingOptions {
  provider: ForwardingProvider;
  mailDomain: string;
  /** Whether a contacts provider is configured (then enabling queues a contact upsert). */
  syncContacts: boolean;
  log: Logger;
}

/** E1 and E2: the forwarding state machine of spec part 3. */
export function forwardingService(storage: Storage, options: ForwardingOptions) {
  const { provider, mailDomain, syncContacts, log } = options;

  async function profileOf(accountId: string): Promise<Profile> {
    const profile = await storage.profiles.get(accountId);
    if (!profile) throw new NotFound('profile');
    return profile;
  }

  /** The profile change and the contact job commit together. */
  async function enable(tx: Repositories, accountId: string, email: string, displayName: string) {
    await tx.profiles.setForwarding(accountId, true, email);
    if (syncContacts) {
      await tx.outbox.enqueue({
        kind: 'contacts-upsert',
        email,
        alias: `${displayName}@${mailDomain}`,
      });
    }
  }

  /**
   * The provider first (if it fails, nothing changes here), then our record. Should the record
   * fail after the provider changed, the provider is put back, so the two never disagree
   * silently. All of it holds the alias's lock, which a queued removal of the same alias takes.
   */
  function synchronise(
    alias: string,
    change: () => Promise<void>,
    record: (tx: Repositories) => Promise<void>,
    restore: () => Promise<void>,
  ): Promise<void> {
    return storage.lock(`alias:${alias}`, async () => {
      try {
        await change();
      } catch (error) {
        log.warn({ provider: provider.name, err: error }, 'forwarding provider call failed');
        throw new Unavailable('forwarding-provider');
      }
      try {
        await storage.transaction(record);
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
    async status(accountId: string): Promise<ForwardingStatus> {
      const profile = await storage.profiles.get(accountId);
      return {
        enabled: profile?.forwardingEnabled ?? false,
        email: profile?.forwardingEmail ?? '',
      };
    },

    /** NotFound without a profile: the spec judges that before the request itself. */
    async requireProfile(accountId: string): Promise<void> {
      await profileOf(accountId);
    },

    toggle(accountId: string, request: ToggleForwardingRequest): Promise<ToggleForwardingResponse> {
      return storage.lock(`account:${accountId}`, async () => {
        const profile = await profileOf(accountId);
        const alias = profile.displayName;
        const restore = () =>
          profile.forwardingEnabled
            ? provider.upsertAlias(alias, profile.forwardingEmail)
            : provider.removeAlias(alias);

        if (request.enabled) {
          const email = request.email;
          await synchronise(
            alias,
            () => provider.upsertAlias(alias, email),
            (tx) => enable(tx, accountId, email, alias),
            restore,
          );
        } else if (profile.forwardingEnabled) {
          // Disabling keeps the address, so enabling again can show what it was.
          await synchronise(
            alias,
            () => provider.removeAlias(alias),
            (tx) => tx.profiles.setForwarding(accountId, false, profile.forwardingEmail),
            restore,
          );
        }
        return { success: true };
      });
    },
  };
}

export type ForwardingService = ReturnType<typeof forwardingService>;
