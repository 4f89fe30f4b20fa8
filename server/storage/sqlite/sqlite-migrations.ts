/**
 * Numbered schema migrations, applied in order at start-up and recorded in `schema_migrations`.
 * Never edit a migration that has shipped: add the next number.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, profiles, sites, projects, events, metrics',
    sql: `
      CREATE TABLE accounts (
        id         TEXT PRIMARY KEY,
        label      TEXT,
        created_at TEXT NOT NULL
      );

      -- Only the SHA-256 of a key is stored; prefix is its first characters, for people.
      CREATE TABLE api_keys (
        id         TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        key_hash   TEXT NOT NULL UNIQUE,
        prefix     TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE INDEX api_keys_by_account ON api_keys(account_id);

      -- A profile exists once a display name is set (spec 2.1).
      CREATE TABLE profiles (
        account_id         TEXT PRIMARY KEY REFERENCES accounts(id),
        display_name       TEXT NOT NULL UNIQUE,
        forwarding_enabled INTEGER NOT NULL DEFAULT 0 CHECK (forwarding_enabled IN (0, 1)),
        forwarding_email   TEXT NOT NULL DEFAULT '',
        updated_at         TEXT NOT NULL
      );

      -- blocks is the ordered JSON list of {id, type, content, enabled}: it is always replaced whole.
      CREATE TABLE sites (
        account_id TEXT PRIMARY KEY REFERENCES accounts(id),
        bio        TEXT,
        avatar_url TEXT,
        location   TEXT,
        mood       TEXT,
        theme_id   TEXT,
        visibility INTEGER NOT NULL DEFAULT 0 CHECK (visibility IN (0, 1)),
        blocks     TEXT NOT NULL DEFAULT '[]',
        updated_at TEXT NOT NULL
      );

      CREATE TABLE projects (
        id         TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        name       TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX projects_by_account ON projects(account_id, created_at, id);

      -- The hot path: seq orders records (newest first on read-back); id is the public UUIDv7,
      -- unique by construction (48-bit time, 74 random bits) and never looked up, so it has no
      -- index of its own; created_at is epoch milliseconds, turned into ISO 8601 on read.
      CREATE TABLE events (
        seq         INTEGER PRIMARY KEY,
        id          TEXT NOT NULL,
        project_id  TEXT NOT NULL REFERENCES projects(id),
        event_type  TEXT NOT NULL,
        description TEXT,
        payload     TEXT,
        color       INTEGER,
        created_at  INTEGER NOT NULL
      );
      CREATE INDEX events_by_project ON events(project_id, seq);

      CREATE TABLE metrics (
        seq        INTEGER PRIMARY KEY,
        id         TEXT NOT NULL,
        project_id TEXT NOT NULL REFERENCES projects(id),
        payload    TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX metrics_by_project ON metrics(project_id, seq);
    `,
  },
  {
    version: 2,
    name: 'outbox of deliveries to external services',
    sql: `
      -- Durable jobs written in the same transaction as the change that causes them.
      -- payload is NULL once a job is finished: it may hold a webhook token, kept only while needed.
      CREATE TABLE outbox (
        id              INTEGER PRIMARY KEY,
        kind            TEXT NOT NULL,
        event_id        TEXT UNIQUE,
        payload         TEXT,
        status          TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        last_error      TEXT,
        created_at      TEXT NOT NULL,
        updated_at      TEXT NOT NULL
      );
      CREATE INDEX outbox_due ON outbox(next_attempt_at) WHERE status = 'pending';
    `,
  },
  {
    version: 3,
    name: 'idempotency keys of E7 and E8',
    sql: `
      -- The first answer to each (account, Idempotency-Key), replayed to repeats for 48 hours.
      CREATE TABLE idempotency_keys (
        account_id  TEXT NOT NULL,
        key         TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        response    TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        PRIMARY KEY (account_id, key)
      ) WITHOUT ROWID;
      CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_at);
    `,
  },
];
