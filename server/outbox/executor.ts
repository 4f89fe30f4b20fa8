import { DeliveryError } from '../outbound/delivery-error.js';
import type { ContactsProvider } from '../providers/contacts.js';
import type { DiscordNotifier } from '../providers/discord.js';
import type { ForwardingProvider } from '../providers/forwarding.js';
import type { OutboxJob } from './jobs.js';

export interface Executors {
  discord: DiscordNotifier;
  forwarding: ForwardingProvider | undefined;
  contacts: ContactsProvider | undefined;
}

/** Carries out one job against the service it names. */
export function jobExecutor({ discord, forwarding, contacts }: Executors) {
  const unconfigured = (what: string) =>
    new DeliveryError(`no ${what} provider is configured any more`, false);

  return async (job: OutboxJob): Promise<void> => {
    switch (job.kind) {
      case 'chat-notification':
        return discord.send(job);
      case 'forwarding-remove-alias':
        if (!forwarding) throw unconfigured('forwarding');
        return forwarding.removeAlias(job.alias);
      case 'contacts-upsert':
        if (!contacts) throw unconfigured('contacts');
        return contacts.upsertContact({ email: job.email, alias: job.alias });
    }
  };
}
