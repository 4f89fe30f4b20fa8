/**
 * PostgreSQL's numbered schema migrations, applied in order at start-up (under an advisory lock,
 * so replicas starting together migrate once) and recorded in `schema_migrations`. Never edit a
 * migration that has shipped: add the next number.
 *
 * The tables mirror SQLite's (sqlite/sqlite-migrations.ts) as they stand after all of its
 * migrations, with PostgreSQL's types: BIGINT for epoch milliseconds and sequence numbers,
 * BOOLEAN for flags. Series keys and branches are kept by the ingest statement; the statistics
 * cells are folded from the records a moment later (stats_queue, pg-stats-fold.ts), and outbox
 * jobs carry a lease so that several replicas can share them.
 */
/** What a statistics cell of a series holds (series_cells and series_totals), as on SQLite. */
const SERIES_SUM_COLUMNS = `count BIGINT NOT NULL, min DOUBLE PRECISION NOT NULL,
        max DOUBLE PRECISION NOT NULL, sum DOUBLE PRECISION NOT NULL, last_at BIGINT NOT NULL,
        last_seq BIGINT NOT NULL, last_value DOUBLE PRECISION NOT NULL,
        bin_keys INTEGER[] NOT NULL, bin_counts BIGINT[] NOT NULL,`;

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

export const pgMigrations: PgMigration[] = [
  {
    version: 1,
    name: 'accounts, keys, sessions, profiles, sites, projects, share links',
    sql: `
      -- seq keeps the order of creation (SQLite's rowid) among rows of one millisecond.
      CREATE TABLE accounts (
        id         TEXT PRIMARY KEY,
        seq        BIGSERIAL NOT NULL,
        label      TEXT,
        created_at TEXT NOT NULL
      );
      -- Only the SHA-256 of a key is stored; prefix is its first characters, for people.
      -- scope 'ingest' may only send events and metrics, to project_ids (a JSON array) when set.
      CREATE TABLE api_keys (
        id           TEXT PRIMARY KEY,
        seq          BIGSERIAL NOT NULL,
        account_id   TEXT NOT NULL REFERENCES accounts(id),
        key_hash     TEXT NOT NULL UNIQUE,
        prefix       TEXT NOT NULL,
        label        TEXT,
        scope        TEXT NOT NULL DEFAULT 'full' CHECK (scope IN ('full', 'ingest')),
        project_ids  TEXT,
        created_at   TEXT NOT NULL,
        revoked_at   TEXT,
        last_used_at BIGINT
      );
      CREATE INDEX api_keys_by_account ON api_keys(account_id);
      -- Dashboard sessions: only the SHA-256 of the cookie's token is stored. Times are epoch ms.
      CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        key_id     TEXT NOT NULL REFERENCES api_keys(id),
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX sessions_by_expiry ON sessions(expires_at);
      -- A profile exists once a display name is set (spec 2.1).
      CREATE TABLE profiles (
        account_id         TEXT PRIMARY KEY REFERENCES accounts(id),
        display_name       TEXT NOT NULL UNIQUE,
        forwarding_enabled BOOLEAN NOT NULL DEFAULT FALSE,
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
        visibility BOOLEAN NOT NULL DEFAULT FALSE,
        blocks     TEXT NOT NULL DEFAULT '[]',
        updated_at TEXT NOT NULL
      );
      -- name_key: the name folded for comparison (see domain/project-names.ts), unique per account.
      CREATE TABLE projects (
        id         TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        name       TEXT NOT NULL,
        name_key   TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (account_id, name_key)
      );
      CREATE INDEX projects_by_account ON projects(account_id, created_at, id);
      -- Read-only links to a project's statistics; only the SHA-256 of a token is stored.
      CREATE TABLE share_links (
        id         TEXT PRIMARY KEY,
        seq        BIGSERIAL NOT NULL,
        project_id TEXT NOT NULL REFERENCES projects(id),
        token_hash TEXT NOT NULL UNIQUE,
        prefix     TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE INDEX share_links_by_project ON share_links(project_id);
    `,
  },
  {
    version: 2,
    name: 'events, metrics, statistics keys, outbox, idempotency keys',
    sql: `
      -- seq orders records (newest first on read-back); id is the public UUIDv7.
      -- created_at is epoch milliseconds, turned into ISO 8601 on read.
      CREATE TABLE events (
        seq         BIGSERIAL PRIMARY KEY,
        id          TEXT NOT NULL,
        project_id  TEXT NOT NULL REFERENCES projects(id),
        event_type  TEXT NOT NULL,
        description TEXT,
        payload     TEXT,
        color       INTEGER,
        created_at  BIGINT NOT NULL,
        branch      TEXT,
        status      TEXT
      );
      CREATE INDEX events_by_project ON events(project_id, seq);
      CREATE INDEX events_by_time ON events(project_id, created_at);
      CREATE TABLE metrics (
        seq        BIGSERIAL PRIMARY KEY,
        id         TEXT NOT NULL,
        project_id TEXT NOT NULL REFERENCES projects(id),
        payload    TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        branch     TEXT
      );
      CREATE INDEX metrics_by_project ON metrics(project_id, seq);
      CREATE INDEX metrics_by_time ON metrics(project_id, created_at);
      -- Each numeric leaf of a project's metrics: how many records have it, its latest value (of
      -- the latest time, then the latest seq). Written in a few rows per key (shard): groups
      -- committing at once update rows of their own instead of queueing on one row; reads add
      -- them up.
      CREATE TABLE series (
        project_id TEXT NOT NULL,
        key        TEXT NOT NULL,
        shard      SMALLINT NOT NULL,
        count      BIGINT NOT NULL,
        last_at    BIGINT NOT NULL,
        last_seq   BIGINT NOT NULL,
        last_value DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (project_id, key, shard)
      );
      -- The branches each project's records name (the page's branch filter).
      CREATE TABLE branches (
        project_id TEXT NOT NULL,
        branch     TEXT NOT NULL,
        PRIMARY KEY (project_id, branch)
      );
      -- Durable jobs written in the same transaction as the change that causes them.
      -- payload is NULL once a job is finished: it may hold a webhook token, kept only while needed.
      -- A replica delivering a job holds a lease on it (leased_by, lease_until in epoch ms); a
      -- lease that ran out, its replica dead, lets another replica take the job over.
      CREATE TABLE outbox (
        id              BIGSERIAL PRIMARY KEY,
        kind            TEXT NOT NULL,
        event_id        TEXT UNIQUE,
        payload         TEXT,
        status          TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_at BIGINT NOT NULL,
        last_error      TEXT,
        leased_by       TEXT,
        lease_until     BIGINT,
        created_at      TEXT NOT NULL,
        updated_at      TEXT NOT NULL
      );
      CREATE INDEX outbox_due ON outbox(next_attempt_at) WHERE status = 'pending';
      -- The first answer to each (account, Idempotency-Key), replayed to repeats for 48 hours.
      CREATE TABLE idempotency_keys (
        account_id  TEXT NOT NULL,
        key         TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        response    TEXT NOT NULL,
        created_at  BIGINT NOT NULL,
        PRIMARY KEY (account_id, key)
      );
      CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_at);
    `,
  },
  {
    version: 3,
    name: 'statistics cells, and the records not folded into them yet',
    sql: `
      -- No record is stored while those already stored are queued (below): a replica of the
      -- previous version still running stores again once this commits, through the triggers.
      LOCK TABLE events, metrics IN SHARE MODE;
      -- As on SQLite: a series over one minute, ten minutes or one hour (unit, in ms) and one
      -- branch, and over all branches together; last_seq is the last value's record, which
      -- decides between equal times whatever order records are folded in (commit order). The
      -- sketch's bins are two arrays (bin, count) that a read adds up per bucket in SQL.
      CREATE TABLE series_cells (
        project_id TEXT NOT NULL,
        key        TEXT NOT NULL,
        unit       INTEGER NOT NULL,
        start      BIGINT NOT NULL,
        branch     TEXT NOT NULL,
        ${SERIES_SUM_COLUMNS}
        PRIMARY KEY (project_id, key, branch, unit, start)
      );
      CREATE TABLE series_totals (
        project_id TEXT NOT NULL,
        key        TEXT NOT NULL,
        unit       INTEGER NOT NULL,
        start      BIGINT NOT NULL,
        ${SERIES_SUM_COLUMNS}
        PRIMARY KEY (project_id, key, unit, start)
      );
      -- Events by unit, type and branch ('' for none), counted by status class.
      CREATE TABLE event_cells (
        project_id TEXT NOT NULL,
        unit       INTEGER NOT NULL,
        start      BIGINT NOT NULL,
        event_type TEXT NOT NULL,
        branch     TEXT NOT NULL,
        success    INTEGER NOT NULL,
        failure    INTEGER NOT NULL,
        cancelled  INTEGER NOT NULL,
        other      INTEGER NOT NULL,
        PRIMARY KEY (project_id, unit, start, event_type, branch)
      );
      -- The records each statement stored (by seq), until they are folded into the cells. Not a
      -- watermark on seq: sequence numbers are taken before commit, so a lower one can commit
      -- after a higher one was folded. Reads add what is still queued. Written by triggers, so
      -- that every writer queues what it stores (an ingest group, a replica of the previous
      -- version during an upgrade, an operator's INSERT), in the same transaction.
      CREATE TABLE stats_queue (
        id      BIGSERIAL PRIMARY KEY,
        events  BIGINT[] NOT NULL,
        metrics BIGINT[] NOT NULL
      );
      CREATE FUNCTION queue_stored_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO stats_queue (events, metrics)
        SELECT array_agg(seq ORDER BY seq), '{}' FROM stored HAVING count(*) > 0;
        RETURN NULL;
      END $$;
      CREATE FUNCTION queue_stored_metrics() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO stats_queue (events, metrics)
        SELECT '{}', array_agg(seq ORDER BY seq) FROM stored HAVING count(*) > 0;
        RETURN NULL;
      END $$;
      CREATE TRIGGER queue_stored_events AFTER INSERT ON events
        REFERENCING NEW TABLE AS stored FOR EACH STATEMENT EXECUTE FUNCTION queue_stored_events();
      CREATE TRIGGER queue_stored_metrics AFTER INSERT ON metrics
        REFERENCING NEW TABLE AS stored FOR EACH STATEMENT EXECUTE FUNCTION queue_stored_metrics();
      INSERT INTO stats_queue (events, metrics)
        SELECT array_agg(seq ORDER BY seq), '{}' FROM events GROUP BY seq / 20000 ORDER BY seq / 20000;
      INSERT INTO stats_queue (events, metrics)
        SELECT '{}', array_agg(seq ORDER BY seq) FROM metrics GROUP BY seq / 20000 ORDER BY seq / 20000;
    `,
  },
  {
    version: 4,
    name: 'a CSRF secret per dashboard session',
    sql: `
      -- Each session's forms carry CSRF tokens of its own secret, made at sign-in and gone at
      -- sign-out (issue 22). Sessions opened before have none: they end, and everyone signs in
      -- again (over HTTPS the session cookie is renamed __Host-cistats_session anyway).
      ALTER TABLE sessions ADD COLUMN csrf_secret TEXT;
      DELETE FROM sessions;
    `,
  },
  {
    version: 5,
    name: 'tests as data: test identities, runs, results, messages, quarantine',
    sql: `
      -- As SQLite's migration 7 (sqlite/sqlite-migrations.ts), with PostgreSQL's types.
      CREATE TABLE test_cases (
        id         BIGSERIAL PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id),
        key        TEXT NOT NULL,
        suite      TEXT NOT NULL,
        classname  TEXT,
        name       TEXT NOT NULL,
        file       TEXT,
        line       INTEGER,
        first_seen BIGINT NOT NULL,
        UNIQUE (project_id, key)
      );
      CREATE TABLE test_runs (
        id           BIGSERIAL PRIMARY KEY,
        project_id   TEXT NOT NULL REFERENCES projects(id),
        key          TEXT NOT NULL,
        build_id     TEXT NOT NULL,
        attempt      INTEGER NOT NULL,
        commit_sha   TEXT,
        branch       TEXT,
        pull_request INTEGER,
        event_id     TEXT,
        created_at   BIGINT NOT NULL,
        passed       INTEGER NOT NULL DEFAULT 0,
        failed       INTEGER NOT NULL DEFAULT 0,
        errors       INTEGER NOT NULL DEFAULT 0,
        skipped      INTEGER NOT NULL DEFAULT 0,
        flaky        INTEGER NOT NULL DEFAULT 0,
        duration_ms  BIGINT NOT NULL DEFAULT 0,
        UNIQUE (project_id, key)
      );
      CREATE INDEX test_runs_by_time ON test_runs(project_id, created_at);
      CREATE TABLE test_messages (
        id         BIGSERIAL PRIMARY KEY,
        project_id TEXT NOT NULL,
        text       TEXT NOT NULL,
        UNIQUE (project_id, text)
      );
      -- Integers only; the smallest types that hold them (a row is about 50 bytes with its
      -- header, the index by test about 30 more: BENCHMARKS.md).
      CREATE TABLE test_results (
        run_id      INTEGER NOT NULL,
        test_id     INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL,
        message_id  INTEGER,
        status      SMALLINT NOT NULL,
        attempts    SMALLINT NOT NULL,
        PRIMARY KEY (run_id, test_id)
      );
      CREATE INDEX test_results_by_test ON test_results(test_id, run_id);
      CREATE TABLE test_quarantine (
        project_id TEXT NOT NULL,
        test_key   TEXT NOT NULL,
        reason     TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        automatic  BOOLEAN NOT NULL,
        PRIMARY KEY (project_id, test_key)
      );
    `,
  },
  {
    version: 6,
    name: 'notification channels',
    sql: `
      -- A project's notification channels (issue 30): the URL (target) and a generic webhook's
      -- signing secret sealed; next_send_at paces the channel to its platform's limits, for
      -- every replica at once.
      CREATE TABLE channels (
        seq          BIGSERIAL PRIMARY KEY,
        id           TEXT NOT NULL UNIQUE,
        project_id   TEXT NOT NULL REFERENCES projects(id),
        kind         TEXT NOT NULL,
        name         TEXT NOT NULL,
        hint         TEXT NOT NULL,
        target       TEXT NOT NULL,
        secret       TEXT,
        rules        TEXT NOT NULL,
        next_send_at BIGINT NOT NULL,
        created_at   TEXT NOT NULL,
        updated_at   TEXT NOT NULL
      );
      CREATE INDEX channels_by_project ON channels(project_id);
    `,
  },
  {
    version: 7,
    name: 'retention per project, pinned records',
    sql: `
      -- As SQLite's migration 9: days raw records are kept (NULL: forever), and pinned records.
      ALTER TABLE projects ADD COLUMN retention_days INTEGER;
      ALTER TABLE events ADD COLUMN pinned SMALLINT NOT NULL DEFAULT 0;
      ALTER TABLE metrics ADD COLUMN pinned SMALLINT NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 8,
    name: 'verdicts: series units and directions, thresholds, judged values, alerts, change points',
    sql: `
      -- As SQLite's migration 10 (see there), with PostgreSQL's types.
      ALTER TABLE projects ADD COLUMN default_branch TEXT;
      ALTER TABLE projects ADD COLUMN default_threshold BOOLEAN NOT NULL DEFAULT TRUE;
      ALTER TABLE projects ADD COLUMN chat_webhook TEXT;
      CREATE TABLE series_settings (
        project_id      TEXT NOT NULL,
        key             TEXT NOT NULL,
        unit            TEXT,
        direction       TEXT,
        owner_unit      BOOLEAN NOT NULL DEFAULT FALSE,
        owner_direction BOOLEAN NOT NULL DEFAULT FALSE,
        PRIMARY KEY (project_id, key)
      );
      CREATE TABLE thresholds (
        id              TEXT PRIMARY KEY,
        project_id      TEXT NOT NULL REFERENCES projects(id),
        key             TEXT NOT NULL,
        branch          TEXT NOT NULL,
        test            TEXT NOT NULL,
        lower_boundary  DOUBLE PRECISION,
        upper_boundary  DOUBLE PRECISION,
        min_sample_size INTEGER,
        max_sample_size INTEGER,
        window_seconds  INTEGER,
        created_at      TEXT NOT NULL
      );
      CREATE INDEX thresholds_by_project ON thresholds(project_id);
      CREATE TABLE judged_records (
        seq        BIGINT PRIMARY KEY,
        id         TEXT NOT NULL UNIQUE,
        project_id TEXT NOT NULL,
        branch     TEXT,
        commit_sha TEXT,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX judged_records_by_commit ON judged_records(project_id, commit_sha, seq);
      CREATE INDEX judged_records_by_branch ON judged_records(project_id, branch, seq);
      CREATE TABLE metric_values (
        seq         BIGINT NOT NULL,
        key         TEXT NOT NULL,
        project_id  TEXT NOT NULL,
        branch      TEXT NOT NULL,
        created_at  BIGINT NOT NULL,
        value       DOUBLE PRECISION NOT NULL,
        verdict     TEXT NOT NULL,
        baseline    DOUBLE PRECISION,
        lower_limit DOUBLE PRECISION,
        upper_limit DOUBLE PRECISION,
        test        TEXT,
        sample_size INTEGER,
        base_branch TEXT,
        base_commit TEXT,
        PRIMARY KEY (seq, key)
      );
      CREATE INDEX metric_values_by_series ON metric_values(project_id, key, branch, seq);
      -- The metric records waiting to be judged, queued by a trigger in the transaction that
      -- stored them (not a watermark on seq: see stats_queue).
      CREATE TABLE verdict_queue (
        id      BIGSERIAL PRIMARY KEY,
        metrics BIGINT[] NOT NULL
      );
      CREATE FUNCTION queue_metrics_for_verdicts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO verdict_queue (metrics)
        SELECT array_agg(seq ORDER BY seq) FROM stored HAVING count(*) > 0;
        RETURN NULL;
      END $$;
      CREATE TRIGGER queue_metrics_for_verdicts AFTER INSERT ON metrics
        REFERENCING NEW TABLE AS stored FOR EACH STATEMENT
        EXECUTE FUNCTION queue_metrics_for_verdicts();
      INSERT INTO verdict_queue (metrics)
        SELECT array_agg(seq ORDER BY seq) FROM metrics GROUP BY seq / 20000 ORDER BY seq / 20000;
      CREATE TABLE alerts (
        seq         BIGSERIAL PRIMARY KEY,
        id          TEXT NOT NULL UNIQUE,
        project_id  TEXT NOT NULL,
        key         TEXT NOT NULL,
        branch      TEXT,
        record_id   TEXT NOT NULL,
        commit_sha  TEXT,
        value       DOUBLE PRECISION NOT NULL,
        baseline    DOUBLE PRECISION,
        limit_value DOUBLE PRECISION NOT NULL,
        side        TEXT NOT NULL,
        test        TEXT NOT NULL,
        created_at  BIGINT NOT NULL,
        status      TEXT NOT NULL DEFAULT 'active',
        UNIQUE (record_id, key)
      );
      CREATE INDEX alerts_by_project ON alerts(project_id, seq);
      CREATE TABLE change_point_states (
        project_id TEXT NOT NULL,
        key        TEXT NOT NULL,
        state      TEXT NOT NULL,
        PRIMARY KEY (project_id, key)
      );
      CREATE TABLE change_points (
        project_id  TEXT NOT NULL,
        key         TEXT NOT NULL,
        idx         BIGINT NOT NULL,
        seq         BIGINT NOT NULL,
        record_id   TEXT NOT NULL,
        commit_sha  TEXT,
        at          BIGINT NOT NULL,
        before_mean DOUBLE PRECISION NOT NULL,
        after_mean  DOUBLE PRECISION NOT NULL,
        change      DOUBLE PRECISION,
        p_value     DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (project_id, key, idx)
      );
    `,
  },
  {
    version: 9,
    name: 'verdicts: re-evaluations queued by the owner',
    sql: `
      -- As SQLite's migration 11 (see there), with PostgreSQL's types.
      CREATE TABLE reevaluations (
        id         TEXT PRIMARY KEY,
        project_id TEXT NOT NULL,
        key        TEXT,
        branch     TEXT,
        next_at    BIGINT NOT NULL,
        next_seq   BIGINT NOT NULL,
        last_at    BIGINT NOT NULL,
        last_seq   BIGINT NOT NULL,
        created_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 10,
    name: 'channels: the message each run has on each channel, edited in place; digests',
    sql: `
      -- As SQLite's migration 12 (see there), with PostgreSQL's types.
      CREATE TABLE channel_messages (
        channel_id TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
        run_key    TEXT NOT NULL,
        message_id TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (channel_id, run_key)
      );
      CREATE INDEX channel_messages_by_age ON channel_messages(channel_id, created_at);
      ALTER TABLE channels ADD COLUMN next_digest_at BIGINT;
      CREATE INDEX channels_by_digest ON channels(next_digest_at) WHERE next_digest_at IS NOT NULL;
    `,
  },
  {
    version: 11,
    name: "the project page's build-duration key",
    sql: `
      -- As SQLite's migration 13: the series key of the headline's build durations (NULL: default).
      ALTER TABLE projects ADD COLUMN duration_key TEXT;
    `,
  },
  {
    version: 12,
    name: 'tests as data: the automatic quarantine threshold',
    sql: `
      -- As SQLite's migration 14 (see there), with PostgreSQL's types.
      CREATE TABLE test_settings (
        project_id            TEXT PRIMARY KEY,
        auto_quarantine_score DOUBLE PRECISION
      );
    `,
  },
  {
    version: 13,
    name: 'tests as data: quarantine releases',
    sql: `
      -- As SQLite's migration 15 (see there), with PostgreSQL's types.
      CREATE TABLE test_quarantine_releases (
        project_id  TEXT NOT NULL,
        test_key    TEXT NOT NULL,
        released_at BIGINT NOT NULL,
        PRIMARY KEY (project_id, test_key)
      );
    `,
  },
  {
    version: 14,
    name: 'channels: newly flaky tests',
    sql: `
      -- As SQLite's migration 16 (see there), with PostgreSQL's types.
      ALTER TABLE test_settings ADD COLUMN flaky_check BIGINT;
      CREATE TABLE flaky_known (
        project_id TEXT NOT NULL,
        test_id    BIGINT NOT NULL,
        PRIMARY KEY (project_id, test_id)
      );
      CREATE TABLE flaky_news (
        project_id TEXT NOT NULL,
        at         BIGINT NOT NULL,
        test_id    BIGINT NOT NULL,
        PRIMARY KEY (project_id, at, test_id)
      );
    `,
  },
  {
    version: 15,
    name: 'channels: Slack installations under way',
    sql: `
      -- As SQLite's migration 17 (see there), with PostgreSQL's types.
      CREATE TABLE slack_installs (
        state_hash   TEXT PRIMARY KEY,
        session_tag  TEXT NOT NULL,
        account_id   TEXT NOT NULL,
        project_id   TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        expires_at   BIGINT NOT NULL
      );
      CREATE INDEX slack_installs_by_account ON slack_installs(account_id);
    `,
  },
  {
    version: 16,
    name: 'tests as data: flagged results',
    sql: `
      -- As SQLite's migration 18 (see there).
      CREATE INDEX test_results_flagged ON test_results(run_id, test_id)
        WHERE status IN (1, 2) OR attempts > 1;
    `,
  },
  {
    version: 17,
    name: "the project page's pinned and hidden keys",
    sql: `
      -- As SQLite's migration 19 (see there), with PostgreSQL's types.
      CREATE TABLE key_display (
        project_id TEXT NOT NULL,
        key        TEXT NOT NULL,
        display    TEXT NOT NULL CHECK (display IN ('pinned', 'hidden')),
        at         BIGINT NOT NULL,
        PRIMARY KEY (project_id, key)
      );
    `,
  },
  {
    version: 18,
    name: 'back-dated imports',
    sql: `
      -- As SQLite's migration 20 (see there). PostgreSQL reads time ranges on metrics_by_time and
      -- events_by_time already, so imported records need no flag: only baselines in time order.
      CREATE INDEX metric_values_by_time ON metric_values(project_id, key, branch, created_at, seq);
    `,
  },
  {
    version: 19,
    name: 'change points in time order',
    sql: `
      -- As SQLite's migration 21 (see there).
      DROP INDEX metric_values_by_series;
      ALTER TABLE change_point_states ADD COLUMN stale boolean NOT NULL DEFAULT false;
      UPDATE change_point_states SET stale = true;
      CREATE INDEX change_point_states_stale ON change_point_states(project_id) WHERE stale;
    `,
  },
  {
    version: 20,
    name: "channels: a Discord channel's thread, a run's facts, a run's message refreshed",
    sql: `
      -- As SQLite's migration 22 (see there), with PostgreSQL's types.
      ALTER TABLE channels ADD COLUMN thread_id TEXT;
      ALTER TABLE channel_messages ADD COLUMN run_ref TEXT;
      ALTER TABLE channel_messages ADD COLUMN event TEXT;
      CREATE INDEX channel_messages_by_ref ON channel_messages(channel_id, run_ref)
        WHERE run_ref IS NOT NULL;
      CREATE TABLE run_facts (
        project_id TEXT NOT NULL,
        run_ref    TEXT NOT NULL,
        facts      TEXT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (project_id, run_ref)
      );
      CREATE INDEX run_facts_by_age ON run_facts(project_id, updated_at);
    `,
  },
  {
    version: 21,
    name: 'tests as data: the index by test covers the results',
    sql: `
      -- As SQLite's migration 23 (see there): the results' columns in the index (INCLUDE), so a
      -- test's results are an index-only scan instead of a heap fetch each (the heap is
      -- clustered by run, so one test's rows are on as many pages).
      DROP INDEX test_results_by_test;
      CREATE INDEX test_results_by_test ON test_results(test_id, run_id)
        INCLUDE (status, duration_ms, attempts, message_id);
    `,
  },
  {
    version: 22,
    name: "the project page's marked event types",
    sql: `
      -- As SQLite's migration 24 (see there).
      ALTER TABLE projects ADD COLUMN mark_event_types TEXT;
    `,
  },
  {
    version: 23,
    name: 'judged records: no index entry for a record without a commit or a branch',
    sql: `
      -- As SQLite's migration 25 (see there).
      DROP INDEX judged_records_by_commit;
      DROP INDEX judged_records_by_branch;
      CREATE INDEX judged_records_by_commit ON judged_records(project_id, commit_sha, seq)
        WHERE commit_sha IS NOT NULL;
      CREATE INDEX judged_records_by_branch ON judged_records(project_id, branch, seq)
        WHERE branch IS NOT NULL;
    `,
  },
  {
    version: 24,
    name: 'test results partitioned by month: their run time',
    sql: `
      -- PostgreSQL only (SQLite has no partitions): the partition key of test_results, its run's
      -- created_at (pg-partitions.ts converts the table online, as events and metrics). A
      -- constant default adds the column without rewriting the table: the results stored before
      -- read 0, so they stay in the partition of the past, whatever their run's month. 8 bytes
      -- more a row (BENCHMARKS.md, tests at scale).
      ALTER TABLE test_results ADD COLUMN created_at BIGINT NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 25,
    name: 'statistics cells by workflow and hour',
    sql: `
      -- As SQLite's migration 26 (see there): a workflow's (or CI job's) events and series per
      -- hour and branch, beside the other cells, folded with them (pg-workflow-cells.ts).
      CREATE TABLE workflow_event_cells (
        project_id TEXT NOT NULL,
        workflow   TEXT NOT NULL,
        start      BIGINT NOT NULL,
        event_type TEXT NOT NULL,
        branch     TEXT NOT NULL,
        success    INTEGER NOT NULL,
        failure    INTEGER NOT NULL,
        cancelled  INTEGER NOT NULL,
        other      INTEGER NOT NULL,
        PRIMARY KEY (project_id, workflow, start, event_type, branch)
      );
      CREATE TABLE workflow_series_cells (
        project_id TEXT NOT NULL,
        workflow   TEXT NOT NULL,
        key        TEXT NOT NULL,
        start      BIGINT NOT NULL,
        branch     TEXT NOT NULL,
        ${SERIES_SUM_COLUMNS}
        PRIMARY KEY (project_id, workflow, key, branch, start)
      );
      -- The records stored before these cells existed and folded already into the others: the
      -- fold adds them to these cells alone, a row at a time when it has nothing new (reads add
      -- what is still queued, as for stats_queue). Those still in stats_queue are folded with
      -- the rest. No record is stored meanwhile (the lock): each is in exactly one queue. (NOT IN
      -- a hashed list of the queued seqs: NOT EXISTS with = ANY took over 30 s at 52,000 queued.)
      LOCK TABLE events, metrics IN SHARE MODE;
      CREATE TABLE workflow_queue (
        id      BIGSERIAL PRIMARY KEY,
        events  BIGINT[] NOT NULL,
        metrics BIGINT[] NOT NULL
      );
      INSERT INTO workflow_queue (events, metrics)
        SELECT array_agg(seq ORDER BY seq), '{}' FROM events
         WHERE payload IS NOT NULL
           AND seq NOT IN (SELECT unnest(q.events) FROM stats_queue q)
         GROUP BY seq / 5000 ORDER BY seq / 5000;
      INSERT INTO workflow_queue (events, metrics)
        SELECT '{}', array_agg(seq ORDER BY seq) FROM metrics
         WHERE seq NOT IN (SELECT unnest(q.metrics) FROM stats_queue q)
         GROUP BY seq / 5000 ORDER BY seq / 5000;
    `,
  },
  {
    version: 26,
    name: "channels: a run's test results in its build messages",
    sql: `
      -- As SQLite's migration 27 (see there), with PostgreSQL's types.
      ALTER TABLE channel_messages ADD COLUMN event_id TEXT;
      CREATE INDEX channel_messages_by_event ON channel_messages(channel_id, event_id)
        WHERE event_id IS NOT NULL;
      CREATE TABLE run_tests (
        project_id TEXT NOT NULL,
        event_id   TEXT NOT NULL,
        tests      TEXT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (project_id, event_id)
      );
      CREATE INDEX run_tests_by_age ON run_tests(project_id, updated_at);
    `,
  },
  {
    version: 27,
    name: 'tests as data: a summary per test and branch',
    sql: `
      -- As SQLite's migration 28 (see there).
      CREATE TABLE test_summaries (
        project_id TEXT NOT NULL,
        test_id    BIGINT NOT NULL,
        branch     TEXT NOT NULL,
        last_run   BIGINT NOT NULL,
        recent     TEXT NOT NULL,
        PRIMARY KEY (test_id, branch)
      );
      CREATE INDEX test_summaries_by_last ON test_summaries(project_id, branch, last_run);
      INSERT INTO test_summaries (project_id, test_id, branch, last_run, recent)
      WITH scoped AS (
        SELECT u.project_id, r.test_id, u.branch, r.run_id, r.status, r.attempts
          FROM test_results r JOIN test_runs u ON u.id = r.run_id WHERE u.branch IS NOT NULL
        UNION ALL
        SELECT u.project_id, r.test_id, '', r.run_id, r.status, r.attempts
          FROM test_results r JOIN test_runs u ON u.id = r.run_id
      ), ranked AS (
        SELECT *, row_number() OVER (
          PARTITION BY test_id, branch, status = 3 ORDER BY run_id DESC) AS k
          FROM scoped
      )
      SELECT project_id, test_id, branch, max(run_id),
             coalesce(string_agg(
               CASE WHEN status <> 3 AND k <= 30 THEN run_id || ':' ||
                 CASE WHEN status = 0 AND attempts > 1 THEN 4 ELSE status END END,
               ',' ORDER BY run_id), '')
        FROM ranked GROUP BY project_id, test_id, branch;
    `,
  },
  {
    version: 28,
    name: 'tests as data: counts and durations per test, branch and day',
    sql: `
      -- As SQLite's migration 29 (see there). test_bins_add adds two rows' histograms, as the
      -- ingest's upsert does.
      CREATE TABLE test_days (
        project_id TEXT NOT NULL,
        branch     TEXT NOT NULL,
        day        INTEGER NOT NULL,
        test_id    BIGINT NOT NULL,
        runs       INTEGER NOT NULL,
        passed     INTEGER NOT NULL,
        failed     INTEGER NOT NULL,
        skipped    INTEGER NOT NULL,
        retried    INTEGER NOT NULL,
        bins       TEXT NOT NULL,
        PRIMARY KEY (project_id, branch, day, test_id)
      );
      CREATE FUNCTION test_bins_add(a text, b text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
        SELECT coalesce(string_agg(k || ':' || n, ',' ORDER BY k), '')
          FROM (SELECT split_part(e, ':', 1)::int AS k, sum(split_part(e, ':', 2)::int) AS n
                  FROM unnest(coalesce(string_to_array(nullif(a, ''), ','), '{}')
                              || coalesce(string_to_array(nullif(b, ''), ','), '{}')) AS e
                 GROUP BY 1) AS s
         WHERE n <> 0
      $$;
      -- Built from the results stored so far (bench/tests-scale.ts runs the same statement).
      INSERT INTO test_days (project_id, branch, day, test_id, runs, passed, failed, skipped,
                             retried, bins)
      WITH scoped AS (
        SELECT u.project_id, u.branch, (u.created_at / 86400000)::int AS day, r.test_id,
               r.status, r.attempts, r.duration_ms
          FROM test_results r JOIN test_runs u ON u.id = r.run_id WHERE u.branch IS NOT NULL
        UNION ALL
        SELECT u.project_id, '', (u.created_at / 86400000)::int, r.test_id, r.status,
               r.attempts, r.duration_ms
          FROM test_results r JOIN test_runs u ON u.id = r.run_id
      ), binned AS (
        SELECT project_id, branch, day, test_id,
               CASE WHEN status = 3 THEN NULL WHEN duration_ms < 1 THEN 0
                    ELSE ceil(ln(duration_ms::float8) / ln(1.02::float8 / 0.98::float8))::int
                         + 20000 END AS bin,
               count(*) AS n, count(*) FILTER (WHERE status = 0) AS p,
               count(*) FILTER (WHERE status IN (1, 2)) AS f,
               count(*) FILTER (WHERE status = 3) AS s,
               count(*) FILTER (WHERE status = 0 AND attempts > 1) AS rt
          FROM scoped GROUP BY project_id, branch, day, test_id, bin
      )
      SELECT project_id, branch, day, test_id, sum(n), sum(p), sum(f), sum(s), sum(rt),
             coalesce(string_agg(bin || ':' || n, ',' ORDER BY bin)
                        FILTER (WHERE bin IS NOT NULL), '')
        FROM binned GROUP BY project_id, branch, day, test_id;
    `,
  },
  {
    version: 29,
    name: "channels: a run's tests found by its build and attempt; its newest report kept",
    sql: `
      -- As SQLite's migration 30 (see there).
      ALTER TABLE channel_messages ADD COLUMN build_key TEXT;
      ALTER TABLE channel_messages ADD COLUMN sent_job BIGINT NOT NULL DEFAULT 0;
      CREATE INDEX channel_messages_by_build ON channel_messages(channel_id, build_key)
        WHERE build_key IS NOT NULL;
    `,
  },
  {
    version: 30,
    name: 'tests: the summaries and day rows kept behind the batches',
    sql: `
      -- As SQLite's migration 31 (see there).
      CREATE TABLE test_upkeep (
        id         BIGSERIAL PRIMARY KEY,
        project_id TEXT NOT NULL,
        run_id     BIGINT NOT NULL,
        branch     TEXT,
        day        INTEGER NOT NULL,
        work       TEXT NOT NULL
      );
      CREATE INDEX test_upkeep_by_project ON test_upkeep(project_id, id);
    `,
  },
];
