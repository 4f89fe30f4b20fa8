import { DeliveryError } from '../outbound/delivery-error.js';
import type { ContactsProvider } from '../providers/contacts.js';
import type { DiscordNotifier } from '../providers/discord.js';
import type { ForwardingProvider } from '../providers/forwarding.js';
import type { KeyedLock } from '../services/keyed-lock.js';
import type { OutboxJob } from './jobs.js';

export interface Executors {
  discord: DiscordNotifier;
  forwarding: ForwardingProvider | undefined;
  contacts: ContactsProvider | undefined;
  /** Serialises everything done to one alias at the provider (shared with E2). */
  aliasLock: KeyedLock;
  /** Whether an account forwards mail for the alias now. */
  aliasInUse: (alias: string) => boolean;
}

/** Carries out one job against the service it names. */
export function jobExecutor({ discord, forwarding, contacts, aliasLock, aliasInUse }: Executors) {
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
        return aliasLock.run(job.alias, async () => {
          if (!aliasInUse(job.alias)) await provider.removeAlias(job.alias);
        });
      }
      case 'contacts-upsert':
        if (!contacts) throw unconfigured('contacts');
        return contacts.upsertContact({ email: job.email, alias: job.alias });
    }
  };
}
