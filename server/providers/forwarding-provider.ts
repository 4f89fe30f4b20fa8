/**
 * The external email-forwarding service (ImprovMX in production). Calls are synchronous from the
 * caller's point of view: E2 changes nothing locally unless the provider call succeeded.
 */
export interface ForwardingProvider {
  readonly name: string;
  /** Creates the alias or points it at a new address. */
  upsertAlias(alias: string, forwardTo: string): Promise<void>;
  /** Removes the alias; an alias that is already gone counts as removed. */
  removeAlias(alias: string): Promise<void>;
}

/** The default: forwarding state lives only in our database. */
export const localForwarding: ForwardingProvider = {
  name: 'none',
  async upsertAlias() {},
  async removeAlias() {},
};
