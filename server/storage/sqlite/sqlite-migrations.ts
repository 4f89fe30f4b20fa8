import { projectNameKey } from '../../domain/project-names.js';
import type { Db } from './sqlite-database.js';
import { backfillRecordFacts, sqliteStatsIndex } from './sqlite-stats.js';
import { markStoredRecords } from './sqlite-time-marks.js';
import { backfillWorkflowCells } from './sqlite-workflow-cells.js';

/** What a statistics cell of a series holds (series_cells and series_totals). */
const SERIES_SUM_COLUMNS = `count INTEGER NOT NULL, min REAL NOT NULL, max REAL NOT NULL,
        sum REAL NOT NULL, last_at INTEGER NOT NULL, last_value REAL NOT NULL, bins BLOB NOT NULL,`;

/** Rows read at a time by a migration's pass over the records. */
const MIGRATION_CHUNK = 20_000;

/**
 * Numbered schema migrations, applied in order at start-up and recorded in `schema_migrations`.
 * Never edit a migration that has shipped: add the next number. `run`, when present, follows the
 * SQL in the same transaction (for what SQL cannot do, such as Unicode case folding).
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  run?: (db: Db) => void;
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
  {
    version: 4,
    name: 'key labels, scopes and last use; dashboard sessions; unique project names',
    sql: `
      -- scope 'ingest' may only send events and metrics, to project_ids (a JSON array) when set.
      -- last_used_at is epoch ms, written at most once a minute per key.
      ALTER TABLE api_keys ADD COLUMN label TEXT;
      ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'full'
        CHECK (scope IN ('full', 'ingest'));
      ALTER TABLE api_keys ADD COLUMN project_ids TEXT;
      ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;

      -- Dashboard sessions: only the SHA-256 of the cookie's token is stored. Times are epoch ms.
      -- A session lasts only while the key that opened it is not revoked.
      CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        key_id     TEXT NOT NULL REFERENCES api_keys(id),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX sessions_by_expiry ON sessions(expires_at);

      -- name_key: the name folded for comparison (see domain/project-names.ts), unique per account.
      ALTER TABLE projects ADD COLUMN name_key TEXT;
    `,
    run(db) {
      // Folded in code (Unicode-aware). Names that were already duplicates keep their projects:
      // the later ones get a key no new name can produce (a NUL and their id).
      const projects = db
        .prepare('SELECT id, account_id AS accountId, name FROM projects ORDER BY created_at, id')
        .all() as { id: string; accountId: string; name: string }[];
      const setKey = db.prepare('UPDATE projects SET name_key = ? WHERE id = ?');
      const seen = new Set<string>();
      for (const project of projects) {
        let key = projectNameKey(project.name);
        if (seen.has(`${project.accountId}\n${key}`)) key = `${key}\u0000${project.id}`;
        seen.add(`${project.accountId}\n${key}`);
        setKey.run(key, project.id);
      }
      db.exec('CREATE UNIQUE INDEX projects_unique_name ON projects(account_id, name_key)');
    },
  },
  {
    version: 5,
    name: 'branch and status of records, statistics cells, share links',
    sql: `
      -- Read from the payload when stored (domain/record-facts.ts), for filters and summaries.
      ALTER TABLE events ADD COLUMN branch TEXT;
      ALTER TABLE events ADD COLUMN status TEXT;
      ALTER TABLE metrics ADD COLUMN branch TEXT;
      -- Time ranges: no index on time (each index costs every ingest), but the first seq of
      -- each minute (sqlite-time-marks.ts), read with the (project_id, seq) indexes.
      CREATE TABLE event_marks (minute INTEGER PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE metric_marks (minute INTEGER PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;

      -- Each numeric leaf of a project's metrics: how many records have it, its latest value.
      CREATE TABLE series (
        project_id TEXT NOT NULL,
        key        TEXT NOT NULL,
        count      INTEGER NOT NULL,
        last_at    INTEGER NOT NULL,
        last_value REAL NOT NULL,
        PRIMARY KEY (project_id, key)
      ) WITHOUT ROWID;

      -- A series over one minute, ten minutes or one hour (unit, in ms) and one branch ('' for
      -- none): exact count, min, max, sum and last, and the sketch's bins (float64 pairs).
      CREATE TABLE series_cells (
        project_id TEXT NOT NULL,
        key        TEXT NOT NULL,
        unit       INTEGER NOT NULL,
        start      INTEGER NOT NULL,
        branch     TEXT NOT NULL,
        ${SERIES_SUM_COLUMNS}
        PRIMARY KEY (project_id, key, unit, start, branch)
      ) WITHOUT ROWID;

      -- The same over all branches together, for queries without a branch.
      CREATE TABLE series_totals (
        project_id TEXT NOT NULL,
        key        TEXT NOT NULL,
        unit       INTEGER NOT NULL,
        start      INTEGER NOT NULL,
        ${SERIES_SUM_COLUMNS}
        PRIMARY KEY (project_id, key, unit, start)
      ) WITHOUT ROWID;

      -- Events over one minute, ten minutes or one hour, by type and branch, counted by status.
      CREATE TABLE event_cells (
        project_id TEXT NOT NULL,
        unit       INTEGER NOT NULL,
        start      INTEGER NOT NULL,
        event_type TEXT NOT NULL,
        branch     TEXT NOT NULL,
        success    INTEGER NOT NULL,
        failure    INTEGER NOT NULL,
        cancelled  INTEGER NOT NULL,
        other      INTEGER NOT NULL,
        PRIMARY KEY (project_id, unit, start, event_type, branch)
      ) WITHOUT ROWID;

      -- The branches each project's folded records name (the page's branch filter).
      CREATE TABLE branches (
        project_id TEXT NOT NULL,
        branch     TEXT NOT NULL,
        PRIMARY KEY (project_id, branch)
      ) WITHOUT ROWID;

      -- The last records folded into the cells; later ones are read from the records.
      CREATE TABLE stats_progress (events INTEGER NOT NULL, metrics INTEGER NOT NULL);
      INSERT INTO stats_progress VALUES (0, 0);

      -- Read-only links to a project's statistics; only the SHA-256 of a token is stored.
      CREATE TABLE share_links (
        id         TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id),
        token_hash TEXT NOT NULL UNIQUE,
        prefix     TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE INDEX share_links_by_project ON share_links(project_id);
    `,
    run(db) {
      backfillRecordFacts(db);
      markStoredRecords(db, 'events', MIGRATION_CHUNK);
      markStoredRecords(db, 'metrics', MIGRATION_CHUNK);
      sqliteStatsIndex(db).foldAll();
    },
  },
  {
    version: 6,
    name: 'a CSRF secret per dashboard session',
    sql: `
      -- As PostgreSQL's migration 4: sessions opened before have no CSRF secret, so they end.
      ALTER TABLE sessions ADD COLUMN csrf_secret TEXT;
      DELETE FROM sessions;
    `,
  },
  {
    version: 7,
    name: 'tests as data: test identities, runs, results, messages, quarantine',
    sql: `
      -- Each project's tests, stored once; key is the test's id in the API (a hash of its
      -- normalised suite, class, name and file: domain/tests/test-identity.ts).
      CREATE TABLE test_cases (
        id         INTEGER PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id),
        key        TEXT NOT NULL,
        suite      TEXT NOT NULL,
        classname  TEXT,
        name       TEXT NOT NULL,
        file       TEXT,
        line       INTEGER,
        first_seen INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX test_cases_by_key ON test_cases(project_id, key);

      -- A run: (project, build id, attempt), made by its first batch; its counts are made again
      -- from its results after each batch.
      CREATE TABLE test_runs (
        id           INTEGER PRIMARY KEY,
        project_id   TEXT NOT NULL REFERENCES projects(id),
        key          TEXT NOT NULL,
        build_id     TEXT NOT NULL,
        attempt      INTEGER NOT NULL,
        commit_sha   TEXT,
        branch       TEXT,
        pull_request INTEGER,
        event_id     TEXT,
        created_at   INTEGER NOT NULL,
        passed       INTEGER NOT NULL DEFAULT 0,
        failed       INTEGER NOT NULL DEFAULT 0,
        errors       INTEGER NOT NULL DEFAULT 0,
        skipped      INTEGER NOT NULL DEFAULT 0,
        flaky        INTEGER NOT NULL DEFAULT 0,
        duration_ms  INTEGER NOT NULL DEFAULT 0
      );
      CREATE UNIQUE INDEX test_runs_by_key ON test_runs(project_id, key);
      CREATE INDEX test_runs_by_time ON test_runs(project_id, created_at);

      -- Failure messages (first lines), stored once per project.
      CREATE TABLE test_messages (
        id         INTEGER PRIMARY KEY,
        project_id TEXT NOT NULL,
        text       TEXT NOT NULL
      );
      CREATE UNIQUE INDEX test_messages_by_text ON test_messages(project_id, text);

      -- One row per test per run, only integers: status 0 passed, 1 failed, 2 error, 3 skipped.
      -- Clustered by run (a batch appends); the index gives a test's history.
      CREATE TABLE test_results (
        run_id      INTEGER NOT NULL,
        test_id     INTEGER NOT NULL,
        status      INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL,
        attempts    INTEGER NOT NULL,
        message_id  INTEGER,
        PRIMARY KEY (run_id, test_id)
      ) WITHOUT ROWID;
      CREATE INDEX test_results_by_test ON test_results(test_id, run_id);

      -- Quarantined tests: their failures do not fail a build that reports with --quarantine.
      CREATE TABLE test_quarantine (
        project_id TEXT NOT NULL,
        test_key   TEXT NOT NULL,
        reason     TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        automatic  INTEGER NOT NULL,
        PRIMARY KEY (project_id, test_key)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 8,
    name: 'notification channels',
    sql: `
      -- A project's notification channels (issue 30): the URL (target) and a generic webhook's
      -- signing secret sealed; next_send_at paces the channel to its platform's limits.
      CREATE TABLE channels (
        seq          INTEGER PRIMARY KEY,
        id           TEXT NOT NULL UNIQUE,
        project_id   TEXT NOT NULL REFERENCES projects(id),
        kind         TEXT NOT NULL,
        name         TEXT NOT NULL,
        hint         TEXT NOT NULL,
        target       TEXT NOT NULL,
        secret       TEXT,
        rules        TEXT NOT NULL,
        next_send_at INTEGER NOT NULL,
        created_at   TEXT NOT NULL,
        updated_at   TEXT NOT NULL
      );
      CREATE INDEX channels_by_project ON channels(project_id);
    `,
  },
  {
    version: 9,
    name: 'retention per project, pinned records',
    sql: `
      -- Days raw records are kept (NULL: forever); the statistics cells outlive them.
      ALTER TABLE projects ADD COLUMN retention_days INTEGER;
      -- A pinned record (a release, a baseline run) is never deleted by retention.
      ALTER TABLE events ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE metrics ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 10,
    name: 'verdicts: series units and directions, thresholds, judged values, alerts, change points',
    sql: `
      -- A project's verdict settings (docs/verdicts.md): its default branch (NULL: main, or
      -- master), whether keys without a threshold get the default one, and its chat webhook
      -- for alerts (sealed with the server's secrets key).
      ALTER TABLE projects ADD COLUMN default_branch TEXT;
      ALTER TABLE projects ADD COLUMN default_threshold INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE projects ADD COLUMN chat_webhook TEXT;

      -- Each key's unit and direction: declared by records, or set by the owner (owner_* = 1),
      -- which records then no longer change.
      CREATE TABLE series_settings (
        project_id      TEXT NOT NULL,
        key             TEXT NOT NULL,
        unit            TEXT,
        direction       TEXT,
        owner_unit      INTEGER NOT NULL DEFAULT 0,
        owner_direction INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (project_id, key)
      ) WITHOUT ROWID;

      CREATE TABLE thresholds (
        id              TEXT PRIMARY KEY,
        project_id      TEXT NOT NULL REFERENCES projects(id),
        key             TEXT NOT NULL,
        branch          TEXT NOT NULL,
        test            TEXT NOT NULL,
        lower_boundary  REAL,
        upper_boundary  REAL,
        min_sample_size INTEGER,
        max_sample_size INTEGER,
        window_seconds  INTEGER,
        created_at      TEXT NOT NULL
      );
      CREATE INDEX thresholds_by_project ON thresholds(project_id);

      -- The metric records judged (by the judging worker, after they were stored), with what
      -- judging read from them: baselines of pull requests look up their base commit here.
      CREATE TABLE judged_records (
        seq        INTEGER PRIMARY KEY,
        id         TEXT NOT NULL UNIQUE,
        project_id TEXT NOT NULL,
        branch     TEXT,
        commit_sha TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX judged_records_by_commit ON judged_records(project_id, commit_sha, seq);
      CREATE INDEX judged_records_by_branch ON judged_records(project_id, branch, seq);

      -- Every series value of a judged record (seq), and its verdict: the baselines read these
      -- (by series and branch, '' for none), compare reads a record's.
      CREATE TABLE metric_values (
        seq         INTEGER NOT NULL,
        key         TEXT NOT NULL,
        project_id  TEXT NOT NULL,
        branch      TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        value       REAL NOT NULL,
        verdict     TEXT NOT NULL,
        baseline    REAL,
        lower_limit REAL,
        upper_limit REAL,
        test        TEXT,
        sample_size INTEGER,
        base_branch TEXT,
        base_commit TEXT,
        PRIMARY KEY (seq, key)
      ) WITHOUT ROWID;
      CREATE INDEX metric_values_by_series ON metric_values(project_id, key, branch, seq);

      -- The last metric record judged: the records after it wait for the judging worker.
      CREATE TABLE verdict_progress (metrics INTEGER NOT NULL);
      INSERT INTO verdict_progress VALUES (0);

      CREATE TABLE alerts (
        seq         INTEGER PRIMARY KEY,
        id          TEXT NOT NULL UNIQUE,
        project_id  TEXT NOT NULL,
        key         TEXT NOT NULL,
        branch      TEXT,
        record_id   TEXT NOT NULL,
        commit_sha  TEXT,
        value       REAL NOT NULL,
        baseline    REAL,
        limit_value REAL NOT NULL,
        side        TEXT NOT NULL,
        test        TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        status      TEXT NOT NULL DEFAULT 'active',
        UNIQUE (record_id, key)
      );
      CREATE INDEX alerts_by_project ON alerts(project_id, seq);

      -- Change points of each series on the default branch: the incremental detection's state
      -- (JSON) and the points found, by their index in the series.
      CREATE TABLE change_point_states (
        project_id TEXT NOT NULL,
        key        TEXT NOT NULL,
        state      TEXT NOT NULL,
        PRIMARY KEY (project_id, key)
      ) WITHOUT ROWID;
      CREATE TABLE change_points (
        project_id  TEXT NOT NULL,
        key         TEXT NOT NULL,
        idx         INTEGER NOT NULL,
        seq         INTEGER NOT NULL,
        record_id   TEXT NOT NULL,
        commit_sha  TEXT,
        at          INTEGER NOT NULL,
        before_mean REAL NOT NULL,
        after_mean  REAL NOT NULL,
        change      REAL,
        p_value     REAL NOT NULL,
        PRIMARY KEY (project_id, key, idx)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 11,
    name: 'verdicts: re-evaluations queued by the owner',
    sql: `
      -- Re-evaluations the owner asked for (POST /stats/reevaluate), worked through by the
      -- judging worker a batch at a time, in time order: (next_at, next_seq) is the first
      -- record not re-judged yet, (last_at, last_seq) the last one queued.
      CREATE TABLE reevaluations (
        id         TEXT PRIMARY KEY,
        project_id TEXT NOT NULL,
        key        TEXT,
        branch     TEXT,
        next_at    INTEGER NOT NULL,
        next_seq   INTEGER NOT NULL,
        last_at    INTEGER NOT NULL,
        last_seq   INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 12,
    name: 'channels: the message each run has on each channel, edited in place; digests',
    sql: `
      -- The platform's id of the message a run (channel-rules run key) has on a channel, so
      -- the run's later reports edit it (Discord) instead of posting a new one.
      CREATE TABLE channel_messages (
        channel_id TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
        run_key    TEXT NOT NULL,
        message_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (channel_id, run_key)
      ) WITHOUT ROWID;
      CREATE INDEX channel_messages_by_age ON channel_messages(channel_id, created_at);

      -- When a channel's next digest is due (epoch ms); NULL: it has no digest.
      ALTER TABLE channels ADD COLUMN next_digest_at INTEGER;
      CREATE INDEX channels_by_digest ON channels(next_digest_at) WHERE next_digest_at IS NOT NULL;
    `,
  },
  {
    version: 13,
    name: "the project page's build-duration key",
    sql: `
      -- The series key the project page's headline reads build durations from (NULL: duration_ms
      -- when the project has it; docs/pages.md).
      ALTER TABLE projects ADD COLUMN duration_key TEXT;
    `,
  },
  {
    version: 14,
    name: 'tests as data: the automatic quarantine threshold',
    sql: `
      -- A project's tests settings (docs/tests.md): the flaky score at or above which a test is
      -- quarantined automatically when the quarantine list is read (NULL: off, the default).
      CREATE TABLE test_settings (
        project_id            TEXT PRIMARY KEY,
        auto_quarantine_score REAL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 15,
    name: 'tests as data: quarantine releases',
    sql: `
      -- When the owner last took a test out of quarantine (docs/decisions.md): automatic
      -- quarantine takes it again only when its runs since then alone are flaky enough; the row
      -- goes when the test is quarantined again.
      CREATE TABLE test_quarantine_releases (
        project_id  TEXT NOT NULL,
        test_key    TEXT NOT NULL,
        released_at INTEGER NOT NULL,
        PRIMARY KEY (project_id, test_key)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 16,
    name: 'channels: newly flaky tests',
    sql: `
      -- The flaky check (issue 30's "newly flaky tests" rule): how many checks the project has
      -- had (NULL: none; each check moves it by one, only from the value it read, so two
      -- processes never announce the same tests), and the tests flaky at the last one: a test
      -- flaky now and not then became flaky since.
      ALTER TABLE test_settings ADD COLUMN flaky_check INTEGER;
      CREATE TABLE flaky_known (
        project_id TEXT NOT NULL,
        test_id    INTEGER NOT NULL,
        PRIMARY KEY (project_id, test_id)
      ) WITHOUT ROWID;

      -- Each test that became flaky, and when (epoch ms): what the digests count.
      CREATE TABLE flaky_news (
        project_id TEXT NOT NULL,
        at         INTEGER NOT NULL,
        test_id    INTEGER NOT NULL,
        PRIMARY KEY (project_id, at, test_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 17,
    name: 'channels: Slack installations under way',
    sql: `
      -- "Add to Slack" (docs/notifications.md#add-to-slack): the OAuth state sent to Slack, by its
      -- SHA-256 only, bound to the session that started it (session_tag: a hash of the session's
      -- own secret) and the project; taken once when Slack sends the browser back, minutes at most
      -- after it was made (expires_at, epoch ms). The redirect_uri is the one the code is for.
      CREATE TABLE slack_installs (
        state_hash   TEXT PRIMARY KEY,
        session_tag  TEXT NOT NULL,
        account_id   TEXT NOT NULL,
        project_id   TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        expires_at   INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX slack_installs_by_account ON slack_installs(account_id);
    `,
  },
  {
    version: 18,
    name: 'tests as data: flagged results',
    sql: `
      -- The results that can make a test flaky or failing (failed, errored, passed on retry),
      -- by run: a read finds the few tests that need analysing without reading every result of
      -- its runs (docs/decisions.md, "Tests reads analyse the flagged tests only").
      CREATE INDEX test_results_flagged ON test_results(run_id, test_id)
        WHERE status IN (1, 2) OR attempts > 1;
    `,
  },
  {
    version: 19,
    name: "the project page's pinned and hidden keys",
    sql: `
      -- Keys the owner pinned (drawn first after regressions) or hidden (listed in one line, not
      -- drawn) on the project page (docs/pages.md); \`at\` (epoch ms) orders the pins.
      CREATE TABLE key_display (
        project_id TEXT NOT NULL,
        key        TEXT NOT NULL,
        display    TEXT NOT NULL CHECK (display IN ('pinned', 'hidden')),
        at         INTEGER NOT NULL,
        PRIMARY KEY (project_id, key)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 20,
    name: 'back-dated imports',
    sql: `
      -- Records of POST /stats/import-records keep their own (past) time, so they break the
      -- order the time marks rely on (sqlite-time-marks.ts): they are flagged, and found by time
      -- through a partial index that an ordinary insert (imported = 0) adds no entry to, so
      -- ingest maintains nothing more (docs/decisions.md, "Importing back-dated records").
      ALTER TABLE events ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE metrics ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX events_imported ON events(project_id, created_at, seq) WHERE imported = 1;
      CREATE INDEX metrics_imported ON metrics(project_id, created_at, seq) WHERE imported = 1;
      -- Baselines are the values before a record in time order, (created_at, seq), which an
      -- import makes differ from seq order. Written by judging, not by ingest.
      CREATE INDEX metric_values_by_time ON metric_values(project_id, key, branch, created_at, seq);
    `,
  },
  {
    version: 21,
    name: 'change points in time order',
    sql: `
      -- Change points follow a series in time order, (created_at, seq), as baselines do since
      -- migration 20: an imported history is no longer fed after the values newer than it. Every
      -- series read is now in time order, so the index by seq goes (one B-tree entry fewer for
      -- each judged value). A series that gets a value older than the last one fed is marked
      -- stale and rebuilt in the background (services/verdicts/change-point-update.ts); the
      -- states stored so far followed seq order, so all are rebuilt once.
      DROP INDEX metric_values_by_series;
      ALTER TABLE change_point_states ADD COLUMN stale INTEGER NOT NULL DEFAULT 0;
      UPDATE change_point_states SET stale = 1;
      CREATE INDEX change_point_states_stale ON change_point_states(project_id) WHERE stale = 1;
    `,
  },
  {
    version: 22,
    name: "channels: a Discord channel's thread, a run's facts, a run's message refreshed",
    sql: `
      -- A Discord channel's thread (forum post or thread), sent as ?thread_id= on every execute
      -- and edit; NULL: the channel itself (or the thread the URL names).
      ALTER TABLE channels ADD COLUMN thread_id TEXT;
      -- The run a message tells of without its event type (repository, build, job: what a
      -- metric record of the run names too), and the summary last sent for it: a regression
      -- judged later on the run's metrics sends that summary again with the run's facts.
      ALTER TABLE channel_messages ADD COLUMN run_ref TEXT;
      ALTER TABLE channel_messages ADD COLUMN event TEXT;
      CREATE INDEX channel_messages_by_ref ON channel_messages(channel_id, run_ref)
        WHERE run_ref IS NOT NULL;
      -- What judging found on a run's metric records, for its build messages: the duration
      -- against the base and the regressions (JSON), per attempt. Written by judging (only for a
      -- project with channels), kept 30 days.
      CREATE TABLE run_facts (
        project_id TEXT NOT NULL,
        run_ref    TEXT NOT NULL,
        facts      TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (project_id, run_ref)
      ) WITHOUT ROWID;
      CREATE INDEX run_facts_by_age ON run_facts(project_id, updated_at);
    `,
  },
  {
    version: 23,
    name: 'tests as data: the index by test covers the results',
    sql: `
      -- A test's results read through its index alone: the flaky and failing answers read every
      -- result of the flagged tests in the range's runs (60,000 at 10 M results), and through an
      -- index of (test, run) alone each was a lookup into the table clustered by run
      -- (docs/decisions.md, "The index by test covers the results").
      DROP INDEX test_results_by_test;
      CREATE INDEX test_results_by_test
        ON test_results(test_id, run_id, status, duration_ms, attempts, message_id);
    `,
  },
  {
    version: 24,
    name: "the project page's marked event types",
    sql: `
      -- The event types drawn as marks on the project page's charts, a JSON array of texts (NULL:
      -- release and deploy; docs/pages.md).
      ALTER TABLE projects ADD COLUMN mark_event_types TEXT;
    `,
  },
  {
    version: 25,
    name: 'judged records: no index entry for a record without a commit or a branch',
    sql: `
      -- Judging writes a judged_records row for every metric record, and each of its indexes is
      -- a B-tree entry more per record (BENCHMARKS.md, issue 31). The two by commit and by branch
      -- are read only with a commit or a branch given (commit_sha = ?, branch = ?: never true of
      -- NULL), so a record without one (E8's, a script's) needs no entry in them; the planner
      -- uses a partial index WHERE x IS NOT NULL for any comparison on x.
      DROP INDEX judged_records_by_commit;
      DROP INDEX judged_records_by_branch;
      CREATE INDEX judged_records_by_commit ON judged_records(project_id, commit_sha, seq)
        WHERE commit_sha IS NOT NULL;
      CREATE INDEX judged_records_by_branch ON judged_records(project_id, branch, seq)
        WHERE branch IS NOT NULL;
    `,
  },
  {
    version: 26,
    name: 'statistics cells by workflow and hour',
    sql: `
      -- A workflow's (GitHub's github.workflow, else another CI's ci.job) events in one hour, by
      -- type and branch ('' for none), counted by status class: the project page's figures and
      -- build health for one workflow (docs/pages.md, "By workflow or CI job"). Hours only.
      CREATE TABLE workflow_event_cells (
        project_id TEXT NOT NULL,
        workflow   TEXT NOT NULL,
        start      INTEGER NOT NULL,
        event_type TEXT NOT NULL,
        branch     TEXT NOT NULL,
        success    INTEGER NOT NULL,
        failure    INTEGER NOT NULL,
        cancelled  INTEGER NOT NULL,
        other      INTEGER NOT NULL,
        PRIMARY KEY (project_id, workflow, start, event_type, branch)
      ) WITHOUT ROWID;
      -- A workflow's series over one hour and one branch, as series_cells holds them; all
      -- branches are added up when read (no totals table: a workflow has few branches).
      CREATE TABLE workflow_series_cells (
        project_id TEXT NOT NULL,
        workflow   TEXT NOT NULL,
        key        TEXT NOT NULL,
        start      INTEGER NOT NULL,
        branch     TEXT NOT NULL,
        ${SERIES_SUM_COLUMNS}
        PRIMARY KEY (project_id, workflow, key, start, branch)
      ) WITHOUT ROWID;
    `,
    // The records folded so far, from their payloads (later ones are folded as they come).
    run: backfillWorkflowCells,
  },
  {
    version: 27,
    name: "channels: a run's test results in its build messages",
    sql: `
      -- The event a run's message was last sent for, so that the test results sent for that
      -- event (ingest-tests' eventId), judged after the message was sent, find it and update it.
      ALTER TABLE channel_messages ADD COLUMN event_id TEXT;
      CREATE INDEX channel_messages_by_event ON channel_messages(channel_id, event_id)
        WHERE event_id IS NOT NULL;
      -- What a build event's test results say (its counts, its new and flaky failures; JSON), for
      -- its messages. Written off the ingest path (only for a project with channels), 30 days.
      CREATE TABLE run_tests (
        project_id TEXT NOT NULL,
        event_id   TEXT NOT NULL,
        tests      TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (project_id, event_id)
      ) WITHOUT ROWID;
      CREATE INDEX run_tests_by_age ON run_tests(project_id, updated_at);
    `,
  },
  {
    version: 28,
    name: 'tests as data: a summary per test and branch',
    sql: `
      -- Per test, on each branch and on every branch (branch ''): the newest run it has a result
      -- in and its newest 30 results that were not skipped ("runId:code" oldest first, code the
      -- status or 4 for a pass on retry). Kept by each stored batch (domain/tests/test-recent.ts),
      -- so the tests that ran in a range reaching the newest run, and the flaky answer's flips
      -- and score, are read per test instead of from every result (docs/tests.md, "The per-test
      -- summary").
      CREATE TABLE test_summaries (
        project_id TEXT NOT NULL,
        test_id    INTEGER NOT NULL,
        branch     TEXT NOT NULL,
        last_run   INTEGER NOT NULL,
        recent     TEXT NOT NULL,
        PRIMARY KEY (test_id, branch)
      ) WITHOUT ROWID;
      CREATE INDEX test_summaries_by_last ON test_summaries(project_id, branch, last_run);
      -- Built from the results stored so far (bench/tests-scale.ts runs the same statement).
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
             coalesce(group_concat(
               CASE WHEN status <> 3 AND k <= 30 THEN run_id || ':' ||
                 CASE WHEN status = 0 AND attempts > 1 THEN 4 ELSE status END END,
               ',' ORDER BY run_id), '')
        FROM ranked GROUP BY project_id, test_id, branch;
    `,
  },
  {
    version: 29,
    name: 'tests as data: counts and durations per test, branch and day',
    sql: `
      -- Per test, on each branch and on every branch (branch ''), per UTC day of its runs (the
      -- run's time, days since 1970): its results' counts (failed counts errors; retried: passed
      -- on retry) and a histogram of the durations of those not skipped, "bin:count" by
      -- ascending bin, the 2 % bins of domain/sketch.ts. Kept by each stored batch
      -- (domain/tests/test-days.ts); the failing, slowest and by-name lists and the Tests view's
      -- previous period read a range's days instead of its results (docs/tests.md, "Kept per day").
      CREATE TABLE test_days (
        project_id TEXT NOT NULL,
        branch     TEXT NOT NULL,
        day        INTEGER NOT NULL,
        test_id    INTEGER NOT NULL,
        runs       INTEGER NOT NULL,
        passed     INTEGER NOT NULL,
        failed     INTEGER NOT NULL,
        skipped    INTEGER NOT NULL,
        retried    INTEGER NOT NULL,
        bins       TEXT NOT NULL,
        PRIMARY KEY (project_id, branch, day, test_id)
      ) WITHOUT ROWID;
      -- Built from the results stored so far (bench/tests-scale.ts runs the same statement).
      INSERT INTO test_days (project_id, branch, day, test_id, runs, passed, failed, skipped,
                             retried, bins)
      WITH scoped AS (
        SELECT u.project_id, u.branch, u.created_at / 86400000 AS day, r.test_id, r.status,
               r.attempts, r.duration_ms
          FROM test_results r JOIN test_runs u ON u.id = r.run_id WHERE u.branch IS NOT NULL
        UNION ALL
        SELECT u.project_id, '', u.created_at / 86400000, r.test_id, r.status, r.attempts,
               r.duration_ms
          FROM test_results r JOIN test_runs u ON u.id = r.run_id
      ), binned AS (
        SELECT project_id, branch, day, test_id,
               CASE WHEN status = 3 THEN NULL WHEN duration_ms < 1 THEN 0
                    ELSE CAST(ceil(ln(duration_ms) / ln(1.02 / 0.98)) AS INTEGER) + 20000 END AS bin,
               count(*) AS n, sum(status = 0) AS p, sum(status IN (1, 2)) AS f,
               sum(status = 3) AS s, sum(status = 0 AND attempts > 1) AS rt
          FROM scoped GROUP BY project_id, branch, day, test_id, bin
      )
      SELECT project_id, branch, day, test_id, sum(n), sum(p), sum(f), sum(s), sum(rt),
             coalesce(group_concat(CASE WHEN bin IS NOT NULL THEN bin || ':' || n END, ','
                                   ORDER BY bin), '')
        FROM binned GROUP BY project_id, branch, day, test_id;
    `,
  },
  {
    version: 30,
    name: "channels: a run's tests found by its build and attempt; its newest report kept",
    sql: `
      -- The build and attempt a run's message was last sent for (JSON ["<build id>", attempt]),
      -- so that test results sent without an eventId (ingest-tests' buildId and attempt) find
      -- it. (A generic webhook's run keeps its webhook-id in message_id, as Discord's id is.)
      ALTER TABLE channel_messages ADD COLUMN build_key TEXT;
      -- The outbox job whose report was sent last: an older report's retry, sent after a newer
      -- one, is not sent (it would put the older state back).
      ALTER TABLE channel_messages ADD COLUMN sent_job INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX channel_messages_by_build ON channel_messages(channel_id, build_key)
        WHERE build_key IS NOT NULL;
    `,
  },
  {
    version: 31,
    name: 'tests: the summaries and day rows kept behind the batches',
    sql: `
      -- A stored batch's upkeep of its tests' summaries and day rows, applied after it was
      -- acknowledged (domain/tests/test-upkeep.ts): the run, the branch the batch named, the
      -- run's day, and the batch's results (before and after a merge) as JSON arrays.
      CREATE TABLE test_upkeep (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id TEXT NOT NULL,
        run_id     INTEGER NOT NULL,
        branch     TEXT,
        day        INTEGER NOT NULL,
        work       TEXT NOT NULL
      );
      CREATE INDEX test_upkeep_by_project ON test_upkeep(project_id, id);
    `,
  },
];
