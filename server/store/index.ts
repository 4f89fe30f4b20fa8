import type { Db } from '../db/database.js';
import { accountStore } from './accounts.js';
import { idempotencyStore } from './idempotency.js';
import { outboxStore } from './outbox.js';
import { profileStore } from './profiles.js';
import { projectStore } from './projects.js';
import { recordStore } from './records.js';
import { siteStore } from './sites.js';

/** Every table's prepared statements, prepared once per database connection. */
export function createStores(db: Db) {
  return {
    accounts: accountStore(db),
    projects: projectStore(db),
    profiles: profileStore(db),
    sites: siteStore(db),
    records: recordStore(db),
    outbox: outboxStore(db),
    idempotency: idempotencyStore(db),
  };
}

export type Stores = ReturnType<typeof createStores>;
