import type { ApiKeyInfo, KeyScope } from '../../contract/api-keys.js';
import type { ChannelKind } from '../../contract/channel-targets.js';
import type { ChannelRules } from '../../contract/channels.js';
import type { RecordPosition } from '../../contract/cursor.js';
import type { Project } from '../../contract/projects.js';
import type { StoredEvent, StoredMetric } from '../../contract/readback.js';
import type { SiteConfiguration } from '../../contract/site.js';
import type { KeyDigest } from '../domain/api-keys.js';
import type { SeriesSum } from '../domain/series-sum.js';
import type { SiteFields } from '../domain/site-update.js';
import type { ReadPlan } from '../domain/time-buckets.js';
import type { OutboxJob } from '../outbox/outbox-jobs.js';
import type { ProjectPageRepository } from './project-page/page-repository.js';
import type { ReplicaStatus } from './read-routing/replica-status.js';
import type { StorageUseRepository } from './storage-use.js';
import type { TestExportPages } from './tests/test-export.js';
import type { TestRepository } from './tests/test-repository.js';

/**
 * What the services need from a database, and all they know of it. Every method returns a
 * promise; each backend (`sqlite/`, and any other) implements these interfaces in its own folder,
 * and nothing outside that folder knows which database it is.
 *
 * Called on `Storage`, a method commits on its own before its promise resolves (a 2xx answered
 * after it is durable). Called on the repositories a `transaction` hands out, it joins that
 * transaction.
 */

/** Who is calling, as their key says. */
export interface KeyOwner {
  accountId: string;
  keyId: string;
  scope: KeyScope;
  /** For an ingest key, the projects it may send to; null: every project of the account. */
  projectIds: string[] | null;
}

/** A key to store: its digest (never the key), and what it may do. */
export interface NewKey {
  digest: KeyDigest;
  label: string | null;
  scope: KeyScope;
  projectIds: string[] | null;
}

/** A key as its account sees it listed (the API's own shape). */
export type KeyInfo = ApiKeyInfo;

/** An account as the admin CLI lists it. */
export interface AccountInfo {
  accountId: string;
  label: string | null;
  created_at: string;
}

export interface AccountRepository {
  count(): Promise<number>;
  /** Every account, oldest first. */
  list(): Promise<AccountInfo[]>;
  exists(accountId: string): Promise<boolean>;
  /** A new account with its first key; returns both ids. */
  create(label: string | null, key: NewKey): Promise<{ accountId: string; keyId: string }>;
  /** Adds a key to an account; returns its id. */
  createKey(accountId: string, key: NewKey): Promise<string>;
  /** The owner of the unrevoked key with this hash. */
  findKey(keyHash: string): Promise<KeyOwner | undefined>;
  /** The account's unrevoked keys, oldest first. */
  listKeys(accountId: string): Promise<KeyInfo[]>;
  /**
   * Revokes a key (only one of `accountId`'s, when given); false when there is no such key.
   * Revoking twice keeps the first time.
   */
  revokeKey(keyId: string, accountId?: string): Promise<boolean>;
  /** Records when keys were last used (epoch ms), a batch at a time. */
  recordKeyUse(uses: readonly (readonly [keyId: string, at: number])[]): Promise<void>;
}

/** A dashboard session as stored: its account, expiry, and the secret of its forms' CSRF tokens. */
export interface StoredSession {
  accountId: string;
  expiresAt: number;
  csrfSecret: string;
}

/**
 * Dashboard sessions; only the hash of a token is stored, with the session's CSRF secret (useless
 * without the session's cookie). Times are epoch ms. A session ends with the key that opened it:
 * once that key is revoked, `find` no longer finds it.
 */
export interface SessionRepository {
  create(tokenHash: string, owner: KeyOwner, expiresAt: number, csrfSecret: string): Promise<void>;
  /**
   * The session, unless it is unknown, expired at `now`, or its key was revoked; one without a
   * CSRF secret (opened by a version before them) is no session either.
   */
  find(tokenHash: string, now: number): Promise<StoredSession | undefined>;
  renew(tokenHash: string, expiresAt: number): Promise<void>;
  delete(tokenHash: string): Promise<void>;
  /** Forgets sessions expired before `now`; returns how many. */
  purgeExpired(now: number): Promise<number>;
}

/** A profile exists once a display name is set (spec 2.1). */
export interface Profile {
  displayName: string;
  forwardingEnabled: boolean;
  forwardingEmail: string;
}

export interface ProfileRepository {
  get(accountId: string): Promise<Profile | undefined>;
  /** Whether some account forwards mail for this alias now. */
  isForwarding(displayName: string): Promise<boolean>;
  /**
   * Creates the profile or renames it; forwarding is left as it is. False, changing nothing, when
   * another account holds the name (display names are unique, whoever writes at the same time).
   */
  setDisplayName(accountId: string, displayName: string): Promise<boolean>;
  setForwarding(accountId: string, enabled: boolean, email: string): Promise<void>;
}

/** A visible site with the parts of its owner's profile that its public page shows. */
export interface PublicSite {
  displayName: string;
  forwardingEnabled: boolean;
  site: SiteConfiguration;
}

export interface SiteRepository {
  /** The site of the account holding `displayName`, when that site is visible; else undefined. */
  findVisible(displayName: string): Promise<PublicSite | undefined>;
  /** The site; one that was never touched is hidden and empty. */
  get(accountId: string): Promise<SiteConfiguration>;
  /** Flips visibility atomically (concurrent flips are never lost); returns the new value. */
  toggleVisibility(accountId: string): Promise<boolean>;
  /** Applies `change` to the stored fields atomically and returns the new site. */
  update(
    accountId: string,
    change: (current: SiteConfiguration) => SiteFields,
  ): Promise<SiteConfiguration>;
}

export interface ProjectRef {
  accountId: string;
  name: string;
}

export interface ProjectRepository {
  /**
   * A new project; undefined, creating nothing, when the account already has a project whose
   * `nameKey` (the name folded for comparison) is the same, whoever writes at the same time.
   */
  create(accountId: string, name: string, nameKey: string): Promise<Project | undefined>;
  /** The account's projects, oldest first. */
  list(accountId: string): Promise<Project[]>;
  /** A project's owner and name, or undefined when there is no such project. */
  find(projectId: string): Promise<ProjectRef | undefined>;
}

/**
 * An event as written; payload is already serialised JSON, time is epoch ms. `branch` and
 * `status` are read from the payload (domain/record-facts.ts), for filters and summaries.
 */
export interface EventRow {
  id: string;
  projectId: string;
  eventType: string;
  description: string | null;
  payload: string | null;
  color: number | null;
  createdAt: number;
  branch: string | null;
  status: string | null;
}

export interface MetricRow {
  id: string;
  projectId: string;
  payload: string;
  createdAt: number;
  branch: string | null;
}

/** A record to store; a metric comes with its series (numeric leaves), read once by the service. */
export type NewRecord =
  | {
      kind: 'event';
      row: EventRow;
      /** E7's chatWebhook notification (get-events shows its state). */
      notification: OutboxJob | undefined;
      /** The messages to the project's channels its rules want (issue 30). */
      channelJobs?: readonly OutboxJob[];
    }
  | {
      kind: 'metric';
      row: MetricRow;
      series: [string, number][];
      /** The payload `row.payload` serialises, handed to judging in this process (fresh-metrics.ts). */
      parsed?: Record<string, unknown>;
    };

/** The first answer to an (account, Idempotency-Key), stored with the record it acknowledges. */
export interface IdempotencyClaim {
  accountId: string;
  key: string;
  fingerprint: string;
  response: string;
}

export interface StoredAnswer {
  fingerprint: string;
  response: string;
}

export type AppendResult = { stored: true } | { stored: false; earlier: StoredAnswer };

/** A page, newest first; `nextBefore` is the position to continue from, null on the last page. */
export interface Page<T, Position = number> {
  items: T[];
  nextBefore: Position | null;
}

/** Read-back filters, combined with AND; times are epoch ms, `from` inclusive, `to` exclusive. */
export interface RecordFilter {
  eventType?: string | undefined;
  status?: string | undefined;
  branch?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
}

export interface RecordRepository {
  /**
   * Stores an event (with its notification job) or a metric. With a claim, stores nothing when
   * the (account, key) already has an answer, and returns that answer instead. Backends may group
   * concurrent appends into one transaction; the promise resolves once the record is durable.
   */
  append(record: NewRecord, claim?: IdempotencyClaim): Promise<AppendResult>;
  /**
   * Back-dated records (POST /stats/import-records), stored with their own times in one commit;
   * their statistics folded by those times. Never on ingest's path (docs/decisions.md).
   */
  importBatch(records: readonly NewRecord[]): Promise<void>;
  /** Ids of the project's events or metrics made in [from, to] (epoch ms): an import's re-run. */
  storedIds(
    projectId: string,
    kind: NewRecord['kind'],
    from: number,
    to: number,
  ): Promise<string[]>;
  /**
   * Events of a project newest first by (time, seq), so that an imported record is listed at its
   * time, before position `before` (exclusive), matching `filter`, with their notification's
   * state. (Metrics ignore the filter's eventType and status.)
   */
  events(
    projectId: string,
    filter: RecordFilter,
    limit: number,
    before?: RecordPosition,
  ): Promise<Page<StoredEvent, RecordPosition>>;
  metrics(
    projectId: string,
    filter: RecordFilter,
    limit: number,
    before?: RecordPosition,
  ): Promise<Page<StoredMetric, RecordPosition>>;
}

/** A series key of a project: how many records have it, and its latest value. */
export interface SeriesKeyInfo {
  key: string;
  count: number;
  lastValue: number;
  lastAt: number;
}

/** A pre-aggregated minute or hour of a series, in the bucket of a read plan. */
export type SeriesCell = Omit<SeriesSum, 'bins'> & {
  bucket: number;
  /** The sketch's bins: [bin, count]. */
  bins: [number, number][];
};

/** Event counts by status of a minute or hour, in the bucket of a read plan. */
export interface EventCountCell {
  bucket: number;
  success: number;
  failure: number;
  cancelled: number;
  other: number;
}

/** A workflow's (or CI job's) cells and records, each naming the workflow it is of. */
export type WorkflowEventCell = EventCountCell & { workflow: string };
export type WorkflowSeriesCell = SeriesCell & { workflow: string };
export interface WorkflowRecord {
  workflow: string;
  bucket: number;
  t: number;
  payload: Record<string, unknown>;
}

/**
 * Statistics over time. Backends keep per-minute, ten-minute and hour cells (by series key or
 * event type, and branch; storage/stats-fold.ts), folded from the records shortly after they are
 * stored; a read plan (domain/time-buckets.ts) says which cells and which raw records make up each
 * bucket, and the records not folded yet are always added, so answers are current.
 */
export interface StatsRepository {
  /**
   * A page of the project's series keys in UTF-8 byte order (SQLite's BINARY, PostgreSQL's "C"):
   * at most `limit`, those after the key `after` when given.
   */
  seriesKeys(
    projectId: string,
    page: { after?: string | undefined; limit: number },
  ): Promise<SeriesKeyInfo[]>;
  /** One series key of the project (undefined: no record has it). */
  seriesKey(projectId: string, key: string): Promise<SeriesKeyInfo | undefined>;
  /** The plan's cells of a series, and its raw records (to read the key from), by bucket. */
  seriesData(
    projectId: string,
    key: string,
    branch: string | undefined,
    plan: ReadPlan,
  ): Promise<{
    cells: SeriesCell[];
    records: { bucket: number; t: number; payload: Record<string, unknown> }[];
  }>;
  /** The plan's event count cells and raw events (their status), by bucket. */
  eventData(
    projectId: string,
    filter: { branch?: string | undefined; eventType?: string | undefined },
    plan: ReadPlan,
  ): Promise<{ cells: EventCountCell[]; events: { bucket: number; status: string | null }[] }>;
  /**
   * eventData of one workflow or CI job (the records whose payload names it: `github.workflow`,
   * else `ci.job`), or of every one (`workflow` null: the table by workflow), from the hour
   * cells: `plan` is cut into whole hours (readPlan's WORKFLOW_UNITS) and the rest is read from
   * the records. Each cell and event names its workflow.
   */
  workflowEventData(
    projectId: string,
    workflow: string | null,
    filter: { branch?: string | undefined; eventType?: string | undefined },
    plan: ReadPlan,
  ): Promise<{
    cells: WorkflowEventCell[];
    events: { workflow: string; bucket: number; status: string | null }[];
  }>;
  /** seriesData of one workflow or CI job (or of every one), as workflowEventData reads. */
  workflowSeriesData(
    projectId: string,
    workflow: string | null,
    key: string,
    branch: string | undefined,
    plan: ReadPlan,
  ): Promise<{ cells: WorkflowSeriesCell[]; records: WorkflowRecord[] }>;
  /** The status of the project's latest event that has one, with the filters; null: none. */
  latestStatus(
    projectId: string,
    filter: { branch?: string | undefined; eventType?: string | undefined },
  ): Promise<string | null>;
  /** The latest event that has a status (its status and type), with the filters; null: none. */
  latestStatusEvent(
    projectId: string,
    filter: { branch?: string | undefined; eventType?: string | undefined },
  ): Promise<{ status: string; eventType: string } | null>;
  /** The branches the project's events and metrics name, in order. */
  branches(projectId: string): Promise<string[]>;
}

export interface ShareLinkInfo {
  id: string;
  prefix: string;
  created_at: string;
}

/** Read-only links to a project's statistics; only the hash of a token is stored. */
export interface ShareLinkRepository {
  create(projectId: string, tokenHash: string, prefix: string): Promise<ShareLinkInfo>;
  /** The project's unrevoked links, oldest first. */
  list(projectId: string): Promise<ShareLinkInfo[]>;
  /** The project of an unrevoked link. */
  find(tokenHash: string): Promise<{ projectId: string } | undefined>;
  /** Revokes the link, when it belongs to one of `accountId`'s projects; false when none did. */
  revoke(tokenHash: string, accountId: string): Promise<boolean>;
  /** The same, by the link's id (the dashboard never holds the token). */
  revokeById(id: string, accountId: string): Promise<boolean>;
}

/**
 * A notification channel as stored: its URL (`target`) and a generic webhook's signing secret
 * sealed (secret-box.ts, context: the channel's id), its rules as given.
 */
export interface StoredChannel {
  id: string;
  projectId: string;
  kind: ChannelKind;
  name: string;
  /** What may be shown of the URL. */
  hint: string;
  target: string;
  secret: string | null;
  rules: ChannelRules;
  createdAt: string;
  updatedAt: string;
  /** When its next digest is due (epoch ms), stored on create; null: no digest. */
  nextDigestAt?: number | null;
  /** A Discord channel's thread (a snowflake), sent as `?thread_id=`; null: none. */
  threadId?: string | null;
}

/** What update-channel may change. */
export interface ChannelChange {
  name?: string | undefined;
  hint?: string | undefined;
  target?: string | undefined;
  /** A new sealed secret (a Slack app channel's bot token). */
  secret?: string | undefined;
  /** New rules come with when their digest is next due (null: none). */
  rules?: { rules: ChannelRules; nextDigestAt: number | null } | undefined;
  /** A Discord channel's thread: null removes it, undefined keeps it. */
  threadId?: string | null | undefined;
}

/** The message a run has on a channel, with the summary last sent in it (issue 30). */
export interface RunMessage {
  runKey: string;
  /** The platform's id of the message ('' where the platform cannot edit). */
  messageId: string;
  /** The EventSummary last sent, as JSON. */
  event: string;
}

/** How many of a project's events had this branch, type and status in a period. */
export interface ChannelEventCount {
  branch: string | null;
  eventType: string;
  status: string | null;
  count: number;
}

/** A project's channels; `accountId` scopes every change to the owner's own projects. */
export interface ChannelRepository {
  /** Stores it, unless the project has `max` channels already (false). */
  create(channel: StoredChannel, max: number): Promise<boolean>;
  /** The project's channels, oldest first. */
  list(projectId: string): Promise<StoredChannel[]>;
  get(id: string): Promise<StoredChannel | undefined>;
  /** Applies the change to one of `accountId`'s channels; undefined when it has no such channel. */
  update(
    id: string,
    accountId: string,
    change: ChannelChange,
    updatedAt: string,
  ): Promise<StoredChannel | undefined>;
  delete(id: string, accountId: string): Promise<boolean>;
  /**
   * Reserves the channel's next sending slot, shared by every process of the database: the
   * time (epoch ms, at least `now`) at which this message may go, at least `spacingMs` after the
   * previous reservation. Undefined when the channel is gone.
   */
  reserveSlot(id: string, now: number, spacingMs: number): Promise<number | undefined>;
  /** Nothing more goes to the channel before `at` (its platform said to wait). */
  holdUntil(id: string, at: number): Promise<void>;
  /** Channels whose digest is due at `now`, the earliest first: their id and due time. */
  dueDigests(now: number, limit: number): Promise<{ id: string; dueAt: number }[]>;
  /**
   * Moves the channel's digest from `dueAt` to `next`, if it is still due at `dueAt` (another
   * process did not take it meanwhile): true when this call took it.
   */
  takeDigest(id: string, dueAt: number, next: number | null): Promise<boolean>;
  /** The project's events in [from, to), counted by branch, type and status (for digests). */
  eventCounts(projectId: string, from: number, to: number): Promise<ChannelEventCount[]>;
  /** How many regression alerts of the project are active. */
  activeAlerts(projectId: string): Promise<number>;
  /** How many of the project's tests became flaky in [from, to) (the flaky check's news). */
  newFlaky(projectId: string, from: number, to: number): Promise<number>;
  /** The platform's id of the message a run has on the channel, if it was sent one. */
  runMessage(channelId: string, runKey: string): Promise<string | undefined>;
  /** The outbox job whose report of the run was sent last on the channel (0: none known). */
  runSentJob(channelId: string, runKey: string): Promise<number>;
  /**
   * A generic webhook's run's `webhook-id`, in one statement: the one the run has on the
   * channel, else `candidate`, remembered as the run's from now on (replicas sending two reports
   * of a run at once agree on it). Undefined when the channel is gone.
   */
  claimRunId(
    channelId: string,
    runKey: string,
    candidate: string,
    at: number,
  ): Promise<string | undefined>;
  /**
   * Remembers (or replaces) the message a run has on the channel; the channel's entries older
   * than `forgetBefore` (epoch ms) go, so the table holds each channel's recent runs only.
   */
  rememberRunMessage(
    channelId: string,
    runKey: string,
    messageId: string,
    at: number,
    forgetBefore: number,
    /**
     * The run without its event type, the summary sent (JSON) and the event it was sent for,
     * for later refreshes; and the build and attempt it was sent for (`buildKey`, JSON
     * `["<build id>", attempt]`), for test results sent without an event.
     */
    sent?: {
      runRef: string;
      event: string;
      eventId?: string | undefined;
      buildKey?: string | undefined;
    },
    /** The outbox job this report was sent by: the run's newest so far unless a later was. */
    job?: number,
  ): Promise<void>;
  /** The messages the run `runRef` has on the channel, with the summaries sent in them. */
  runMessages(channelId: string, runRef: string): Promise<RunMessage[]>;
  /** The messages last sent on the channel for the event `eventId` (a build's report). */
  eventMessages(channelId: string, eventId: string): Promise<RunMessage[]>;
  /**
   * The messages last sent on the channel for the build and attempt `buildKey` (JSON
   * `["<build id>", attempt]`): where test results sent without an event go.
   */
  buildMessages(channelId: string, buildKey: string): Promise<RunMessage[]>;
  /** What the test results sent for an event say (JSON), if they were judged. */
  runTests(projectId: string, eventId: string): Promise<string | undefined>;
  /** Stores (or replaces) an event's test findings; the project's older than `forgetBefore` go. */
  storeRunTests(
    projectId: string,
    eventId: string,
    tests: string,
    at: number,
    forgetBefore: number,
  ): Promise<void>;
  /** What judging found on a run's metric records (JSON), if anything. */
  runFacts(projectId: string, runRef: string): Promise<string | undefined>;
  /** Stores (or replaces) a run's facts; the project's older than `forgetBefore` go. */
  storeRunFacts(
    projectId: string,
    runRef: string,
    facts: string,
    at: number,
    forgetBefore: number,
  ): Promise<void>;
}

/**
 * A Slack installation under way (docs/notifications.md#add-to-slack): the `state` sent to Slack
 * is known by its SHA-256 only, bound to the session that started it (`sessionTag`, a hash of the
 * session's own secret) and to the project; it lasts minutes and is taken once.
 */
export interface SlackInstallState {
  stateHash: string;
  sessionTag: string;
  accountId: string;
  projectId: string;
  /** The redirect_uri sent to Slack's authorize page: the code exchange must name the same. */
  redirectUri: string;
  expiresAt: number;
}

export interface SlackInstallRepository {
  /**
   * Stores it; forgets every installation expired at `now`, and the account's oldest ones past
   * `keepPerAccount`, so that the table stays small whatever a session does.
   */
  create(state: SlackInstallState, now: number, keepPerAccount: number): Promise<void>;
  /**
   * Takes (deletes and answers) the installation of this state hash started by this session,
   * unless it expired at `now`: a second take of the same state finds nothing.
   */
  take(stateHash: string, sessionTag: string, now: number): Promise<SlackInstallState | undefined>;
}

export interface DueJob {
  id: number;
  payload: string;
  attempts: number;
}

/**
 * The durable outbox. A job leaves `pending` exactly once, as delivered or failed, and its
 * payload (which may hold a webhook token) is erased then.
 */
export interface OutboxRepository {
  /** Inside the transaction of the change that causes it: the job exists exactly when the change does. */
  enqueue(job: OutboxJob, eventId?: string): Promise<void>;
  /** Pending jobs due at `now`, at most `limit`, claimed for this worker until an outcome or release. */
  claimDue(now: number, limit: number): Promise<DueJob[]>;
  /**
   * Epoch ms when the earliest pending job this worker does not hold may be claimed, if any
   * (with several processes: including when a lease held by another may run out).
   */
  nextDueAt(): Promise<number | undefined>;
  /**
   * Just before a claimed job is sent: whether this worker still holds it (its claim renewed
   * from `now`). False: another worker took it over, and it must not be sent here.
   */
  renewClaim(id: number, now: number): Promise<boolean>;
  delivered(id: number, attempts: number): Promise<void>;
  failed(id: number, attempts: number, error: string): Promise<void>;
  retryAt(id: number, attempts: number, at: number, error: string): Promise<void>;
  /** Gives up a claim without an outcome (recording it failed): the job is picked again later. */
  release(id: number): Promise<void>;
  /** The payload of every pending job, for sealing at start-up what was stored in the clear. */
  pendingPayloads(): Promise<{ id: number; payload: string }[]>;
  /** Replaces a pending job's payload (the same job, its secret sealed). */
  replacePayload(id: number, payload: string): Promise<void>;
}

/** A key's unit and direction as stored, and whether the owner set each (then records no longer change it). */
export interface SeriesSetting {
  key: string;
  unit: string | null;
  direction: 'lower' | 'higher' | null;
  ownerUnit: boolean;
  ownerDirection: boolean;
}

/** A threshold as stored (ms times; null: a field left to its default). */
export interface ThresholdRow {
  id: string;
  projectId: string;
  key: string;
  branch: string;
  test: string;
  lowerBoundary: number | null;
  upperBoundary: number | null;
  minSampleSize: number | null;
  maxSampleSize: number | null;
  windowSeconds: number | null;
  createdAt: string;
}

/** A project's verdict settings as stored; null: not set. */
export interface ProjectSettingsRow {
  defaultBranch: string | null;
  defaultThreshold: boolean;
  /** The chat webhook URL, sealed (secret-box.ts) when the server has a key. */
  chatWebhook: string | null;
}

/** A metric record waiting to be judged. */
export interface PendingMetric {
  seq: number;
  id: string;
  projectId: string;
  payload: string;
  createdAt: number;
  branch: string | null;
  /** The payload as ingest parsed it, when this process stored the record (else parse `payload`). */
  parsed?: Record<string, unknown>;
}

/** A metric record as judging read it. */
export interface JudgedRecord {
  seq: number;
  id: string;
  projectId: string;
  branch: string | null;
  commit: string | null;
  createdAt: number;
}

/** One series value of a judged record, and its verdict (null fields: none). */
export interface JudgedValue {
  seq: number;
  key: string;
  projectId: string;
  /** '' for none. */
  branch: string;
  createdAt: number;
  value: number;
  verdict: string;
  baseline: number | null;
  lowerLimit: number | null;
  upperLimit: number | null;
  test: string | null;
  sampleSize: number | null;
  baseBranch: string | null;
  baseCommit: string | null;
}

/** Which earlier values of a series on a branch form a baseline. */
export interface BaselineQuery {
  projectId: string;
  key: string;
  branch: string;
  /**
   * Values of records before this place in time order, (created_at, seq) <= (throughAt,
   * throughSeq): an imported record is older than newer records stored before it.
   */
  throughAt: number;
  throughSeq: number;
  /** Only values stored at or after this time (epoch ms), when set. */
  since: number | undefined;
  limit: number;
}

export interface AlertRow {
  id: string;
  seq: number;
  projectId: string;
  key: string;
  branch: string | null;
  recordId: string;
  commit: string | null;
  value: number;
  baseline: number | null;
  limit: number;
  side: 'lower' | 'upper';
  test: string;
  createdAt: number;
  status: 'active' | 'dismissed';
}

export type NewAlert = Omit<AlertRow, 'seq' | 'status'>;

/** A record's place in time order: when it was stored, then its position. */
export interface TimePosition {
  at: number;
  seq: number;
}

/**
 * A re-evaluation the owner asked for (POST /stats/reevaluate): the judged records of a project
 * (optionally of one branch) from `next` through `last` in time order, whose values of `key`
 * (exact or glob; null: every key) the judging worker judges again.
 */
export interface ReevaluationRow {
  id: string;
  projectId: string;
  key: string | null;
  branch: string | null;
  /** The first place not re-judged yet. */
  next: TimePosition;
  last: TimePosition;
  createdAt: number;
}

/** Judged records of a project (optionally of one branch) from `start` through `through`. */
export interface RecordRange {
  projectId: string;
  branch: string | null;
  start: TimePosition;
  through: TimePosition;
  limit: number;
}

export interface ChangePointRow {
  index: number;
  seq: number;
  recordId: string;
  commit: string | null;
  at: number;
  beforeMean: number;
  afterMean: number;
  change: number | null;
  pValue: number;
}

/**
 * Verdicts (issue 23): series settings, thresholds, the project's settings, the judged values
 * (one row per series value of a metric record, with its verdict), alerts and change points.
 * Judging runs after the records are stored (services/verdicts/judging.ts), a batch at a time.
 */
export interface VerdictRepository {
  seriesSettings(projectId: string): Promise<SeriesSetting[]>;
  /** Records' declarations: each changes only what the owner has not set. */
  declareSeries(
    projectId: string,
    units: readonly [string, string | null][],
    directions: readonly [string, string | null][],
  ): Promise<void>;
  /** The owner's setting; a field left undefined is kept. */
  setSeries(
    projectId: string,
    key: string,
    unit: string | null | undefined,
    direction: string | null | undefined,
  ): Promise<void>;

  projectSettings(projectId: string): Promise<ProjectSettingsRow>;
  updateProjectSettings(projectId: string, change: Partial<ProjectSettingsRow>): Promise<void>;

  thresholds(projectId: string): Promise<ThresholdRow[]>;
  threshold(id: string): Promise<ThresholdRow | undefined>;
  createThreshold(row: ThresholdRow): Promise<void>;
  replaceThreshold(row: ThresholdRow): Promise<void>;
  deleteThreshold(id: string): Promise<void>;

  /** Metric records not judged yet, oldest first, at most `limit`; `token` marks them done. */
  pending(limit: number): Promise<{ metrics: PendingMetric[]; token: number[] }>;
  /**
   * How many metric records `pending` has still to return, counted no further than `atMost` (at
   * least that many: `atMost`). Pages say so while judging catches up (issue 28); its cost is a
   * range of at most `atMost` entries of an index, never a pass over every record stored.
   */
  pendingCount(atMost: number): Promise<number>;
  /** Marks the records `pending` returned as judged. */
  judged(token: number[]): Promise<void>;
  /** Stores a record judged for the first time and its values. */
  storeJudged(record: JudgedRecord, values: readonly JudgedValue[]): Promise<void>;
  /** Replaces a judged record and its values (re-evaluation). */
  replaceJudged(record: JudgedRecord, values: readonly JudgedValue[]): Promise<void>;
  /** The values of a baseline, oldest first: the newest `limit` of them. */
  baseline(query: BaselineQuery): Promise<number[]>;
  /** The position of the latest record of a branch with this commit, before `beforeSeq`. */
  seqOfCommit(
    projectId: string,
    branch: string,
    commit: string,
    beforeSeq: number,
  ): Promise<number | undefined>;
  /** A judged record by its position. */
  recordAt(seq: number): Promise<JudgedRecord | undefined>;
  /** The latest judged record of a branch at or before `throughSeq`. */
  latestOnBranch(
    projectId: string,
    branch: string,
    throughSeq: number,
  ): Promise<JudgedRecord | undefined>;
  /** Whether a branch has any value of a key before `before` in time order, (created_at, seq). */
  hasHistory(
    projectId: string,
    key: string,
    branch: string,
    before: TimePosition,
  ): Promise<boolean>;
  /** A judged metric record of the project, by id. */
  record(projectId: string, recordId: string): Promise<JudgedRecord | undefined>;
  /** The latest judged metric record of the project with this commit. */
  latestOfCommit(projectId: string, commit: string): Promise<JudgedRecord | undefined>;
  /** Judged records of a project from position `fromSeq` on, oldest first (re-evaluation). */
  judgedRecords(projectId: string, fromSeq: number, limit: number): Promise<JudgedRecord[]>;
  /** The values (and verdicts) of one record, in key order. */
  valuesOf(seq: number): Promise<JudgedValue[]>;
  /** The values of a series on a branch after `after` in time order, oldest first, at most `limit`. */
  seriesAfter(
    projectId: string,
    key: string,
    branch: string,
    after: TimePosition,
    limit: number,
  ): Promise<{ seq: number; value: number; recordId: string; commit: string | null; at: number }[]>;

  /** The judged records of a range, in time order (re-evaluation); found through an index. */
  recordsInRange(range: RecordRange): Promise<JudgedRecord[]>;
  /** A stored metric record by its position, as judging reads it (undefined: removed since). */
  metricAt(seq: number): Promise<PendingMetric | undefined>;
  queueReevaluation(row: ReevaluationRow): Promise<void>;
  /** How many re-evaluations of the project are queued, not finished. */
  reevaluationsQueued(projectId: string): Promise<number>;
  /** The oldest queued re-evaluation. */
  nextReevaluation(): Promise<ReevaluationRow | undefined>;
  /** Moves a re-evaluation on to `next`; past its last place, it is removed. */
  advanceReevaluation(id: string, next: TimePosition): Promise<void>;
  /**
   * A re-judged regression's alert gets the new judgement (keeping its id and status); false
   * when the value had no alert.
   */
  updateAlert(
    recordId: string,
    key: string,
    judgement: Pick<AlertRow, 'value' | 'baseline' | 'limit' | 'side' | 'test'>,
  ): Promise<boolean>;
  /** Removes the alert of a value that re-judging found no regression. */
  deleteAlert(recordId: string, key: string): Promise<void>;

  /** Stores an alert unless the (record, key) has one already; true when stored. */
  createAlert(alert: NewAlert): Promise<boolean>;
  alerts(
    projectId: string,
    status: 'active' | 'dismissed' | 'all',
    limit: number,
    before: number,
  ): Promise<Page<AlertRow>>;
  alertsOfRecord(recordId: string): Promise<AlertRow[]>;
  alert(id: string): Promise<AlertRow | undefined>;
  setAlertStatus(id: string, status: 'active' | 'dismissed'): Promise<void>;

  /** A series' change-point state, and whether it waits to be rebuilt. */
  changePointState(
    projectId: string,
    key: string,
  ): Promise<{ state: string; stale: boolean } | undefined>;
  /**
   * Saves a series' state (stale: still to be rebuilt) and replaces its change points at index ≥
   * `from` (null: keeps them all and adds `points`).
   */
  saveChangePoints(
    projectId: string,
    key: string,
    save: { state: string; stale: boolean; from: number | null; points: readonly ChangePointRow[] },
  ): Promise<void>;
  /** Marks a series' change points for a rebuild from its first value (a back-dated value came). */
  markChangePointsStale(projectId: string, key: string): Promise<void>;
  /** A series whose change points wait to be rebuilt, if any. */
  staleChangePoints(): Promise<{ projectId: string; key: string } | undefined>;
  /** The keys of a project with change point state. */
  changePointKeys(projectId: string): Promise<string[]>;
  changePoints(projectId: string, key: string, from: number, to: number): Promise<ChangePointRow[]>;
}

export interface IdempotencyRepository {
  /** Forgets answers older than `before` (epoch ms); returns how many. */
  purge(before: number): Promise<number>;
}

/** The two kinds of raw records, as their tables are named. */
export type RecordTable = 'events' | 'metrics';

/** One batch of a retention sweep (RetentionRepository.deleteBatch). */
export interface RetentionBatch {
  /** Records deleted. */
  deleted: number;
  /** The last position (seq) looked at: the next batch starts after it. */
  last: number;
  /** True once the sweep reached a record that stays for its age (or the end). */
  done: boolean;
  /**
   * How long the batch held the database, in ms: on SQLite its work inside the write
   * transaction (the commit is the group commit's, shared with the writes around it), on
   * PostgreSQL its statement as PostgreSQL times it (the commit follows, as for any write).
   */
  ms: number;
}

/**
 * Per-project retention of raw records (docs/operations.md, Retention). Records are deleted only
 * once folded into the statistics cells, which stay; pinned records are never deleted.
 */
export interface RetentionRepository {
  /** The project's retention in days; null: keep forever. */
  retentionOf(projectId: string): Promise<number | null>;
  setRetention(projectId: string, days: number | null): Promise<void>;
  /** Every project with a retention. */
  withRetention(): Promise<{ projectId: string; retentionDays: number }[]>;
  /** Pins (or unpins) a record of the project by its id; false when the project has none such. */
  pin(projectId: string, table: RecordTable, id: string, pinned: boolean): Promise<boolean>;
  /**
   * Looks at up to `limit` of the project's records after position `after`, oldest stored
   * first, and deletes those stored before `before` that are neither pinned nor waiting to be
   * folded, in one short transaction; stops at the first record that is too young (or unfolded).
   */
  deleteBatch(
    projectId: string,
    table: RecordTable,
    before: number,
    after: number,
    limit: number,
  ): Promise<RetentionBatch>;
  /**
   * Gives up to `pages` freed pages back to the file system (SQLite's incremental vacuum) and
   * says how many free pages remain and how long it held the database; PostgreSQL reuses freed
   * space itself (autovacuum): nothing to do.
   */
  reclaim(pages: number): Promise<{ freePages: number; ms: number }>;
  /**
   * PostgreSQL's records are partitioned by month (pg-partitions.ts): drops each partition whose
   * every record is past its project's retention and folded, its pinned records kept (moved),
   * before the batches delete the rest. SQLite has no partitions.
   */
  dropExpiredPartitions?(
    now: number,
  ): Promise<{ dropped: string[]; kept: number; longestMs: number }>;
  /**
   * Deletes up to `limit` test results of the project's oldest test runs made before `before`,
   * and each run once it has none left, in one short transaction; `done` when no run before
   * `before` remains.
   */
  deleteTestBatch(projectId: string, before: number, limit: number): Promise<TestRetentionBatch>;
}

/** What one batch of test-result retention did (RetentionRepository.deleteTestBatch). */
export interface TestRetentionBatch {
  /** Test results deleted. */
  deleted: number;
  /** Test runs deleted with their last results. */
  runs: number;
  done: boolean;
  ms: number;
}

/** A record as exported (docs/export.md): its stored position, its columns as stored. */
export interface ExportEventRow {
  seq: number;
  id: string;
  eventType: string;
  description: string | null;
  /** The payload's JSON text as stored. */
  payload: string | null;
  color: number | null;
  createdAt: number;
}

export interface ExportMetricRow {
  seq: number;
  id: string;
  payload: string;
  createdAt: number;
}

/** Times are epoch ms, `from` inclusive, `to` exclusive. */
export interface ExportRange {
  from?: number | undefined;
  to?: number | undefined;
}

/** A project's records in stored order, a page at a time after a position (the export). */
export interface RecordExportRepository extends TestExportPages {
  events(
    projectId: string,
    range: ExportRange,
    afterSeq: number,
    limit: number,
  ): Promise<ExportEventRow[]>;
  metrics(
    projectId: string,
    range: ExportRange,
    afterSeq: number,
    limit: number,
  ): Promise<ExportMetricRow[]>;
  /** The stored position of a project's record, found by its id (where an export resumes). */
  seqOf(
    projectId: string,
    table: RecordTable,
    id: string,
  ): Promise<{ seq: number; createdAt: number } | undefined>;
  /** The last position of a project's records made before `t` (at or before, `inclusive`); 0: none. */
  lastSeqBefore(
    projectId: string,
    table: RecordTable,
    t: number,
    inclusive: boolean,
  ): Promise<number>;
}

export interface Repositories {
  accounts: AccountRepository;
  sessions: SessionRepository;
  profiles: ProfileRepository;
  sites: SiteRepository;
  projects: ProjectRepository;
  records: RecordRepository;
  stats: StatsRepository;
  shareLinks: ShareLinkRepository;
  channels: ChannelRepository;
  slackInstalls: SlackInstallRepository;
  outbox: OutboxRepository;
  idempotency: IdempotencyRepository;
  retention: RetentionRepository;
  verdicts: VerdictRepository;
  tests: TestRepository;
  projectPage: ProjectPageRepository;
  exports: RecordExportRepository;
  use: StorageUseRepository;
}

export interface Storage extends Repositories {
  /**
   * Runs `work` in one transaction and resolves once it committed; if `work` throws, nothing of it
   * is stored. `work` must touch only `tx` (no other I/O): a backend may run it together with
   * other transactions, and run it again when one of them fails.
   */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Runs tasks with the same key one after another (across every process of this database). */
  lock<T>(key: string, task: () => Promise<T>): Promise<T>;
  /**
   * Whether a transaction holds the event loop for its whole length (SQLite: better-sqlite3 runs
   * it synchronously) rather than waiting for the database between its statements (PostgreSQL).
   * Background judging paces itself by its batches' time on the loop where they hold it, by
   * their wall time where they do not (JudgingWorker, BUSY_SHARE).
   */
  readonly transactionsHoldTheLoop: boolean;
  /**
   * Whether a key may have been revoked by someone else (another process) since the last call.
   * Called on every authenticated request, so it must be cheap and must not wait.
   */
  keysMayHaveChanged(): boolean;
  /**
   * A number that changes after every committed change to what public pages show (sites, display
   * names, forwarding), made in this process or any other. Asked on every page view, so it must be
   * cheap and must not wait; it moves only after the change is visible to readers.
   */
  pagesVersion(): number;
  /** `listener` runs after a commit that queued outbox jobs. */
  onJobsQueued(listener: () => void): void;
  /** A round trip to the database; throws when it cannot answer. */
  ping(): Promise<void>;
  /**
   * Whether writes fail for lack of space: since one failed so (StorageFull), until there is room
   * again (space-watch.ts).
   */
  full(): Promise<boolean>;
  /**
   * Whether writes are refused because a flush of the log failed (SQLite with DURABILITY=full),
   * until a restart. Always false on PostgreSQL, which stops by itself on a failed flush.
   */
  flushFailed(): boolean;
  /** Where reads go, with a read replica configured (PostgreSQL); undefined: none. */
  replica(): ReplicaStatus | undefined;
  /**
   * Empties the write-ahead log into the database where the backend keeps it beside the file
   * (SQLite: a TRUNCATE checkpoint), so that what was overwritten lives on in neither.
   */
  truncateLog(): Promise<void>;
  /** Commits what is pending, then closes. */
  close(): Promise<void>;
}
