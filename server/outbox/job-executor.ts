import { DeliveryError } from '../outbound/delivery-error.js';
import type { ContactsProvider } from '../providers/contacts-provider.js';
import type { DiscordNotifier } from '../providers/discord.js';
import type { ForwardingProvider } from '../providers/forwarding-provider.js';
import type { Storage } from '../storage/storage.js';
import type { OutboxJob } from './outbox-jobs.js';

export interface Executors {
  discord: DiscordNotifier;
  forwarding: ForwardingProvider | undefined;
  contacts: ContactsProvider | undefined;
  /** The alias locks (shared with E2) and who forwards for an alias now. */
  storage: Pick<Storage, 'lock' | 'profiles'>;
}

/** Carries out one job against the service it names. */
export function jobExecutor({ discord, forwarding, contacts, storage }: Executors) {
  const unconfigured = (what: string) =>
    new DeliveryError(`no ${what} provider is configured any more`, false);

  return async (job: OutboxJob): Promise<void> => {
    switch (job.kind) {
      case 'chat-notification':
        return discord.send(job);
      case 'forwarding-remove-alias': {
        const provider = forwarding;
        if (!provider) throw unconfigured('forwarding');
        // The name was freed by a rename; by the time this runs (maybe hours later) someone may
        // have taken it and enabled forwarding: then the alias is theirs, and stays.
        return storage.lock(`alias:${job.alias}`, async () => {
          if (!(await storage.profiles.isForwarding(job.alias))) {
            await provider.removeAlias(job.alias);
          }
        });
      }
      case 'contacts-upsert':
        if (!contacts) throw unconfigured('contacts');
        return contacts.upsertContact({ email: job.email, alias: job.alias });
    }
  };
}
