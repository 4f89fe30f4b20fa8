import { isJsonObject } from '../../../contract/json.js';
import type { DigestSummary } from './digest-summary.js';
import type { RunFacts } from './run-facts.js';
import type { RunTests } from './run-tests.js';

/**
 * What a channel's message tells of an event, read once at ingest from the event and its
 * payload (the reporters' `ci`, `github`, `tests` and `status`), and stored in the outbox job:
 * the message is built from it at delivery, in each platform's format.
 */
export interface EventSummary {
  projectId: string;
  projectName: string;
  eventType: string;
  description: string | null;
  status: string | null;
  /** The status of the previous event of its type on its branch, when a rule asked for it. */
  previousStatus: string | null;
  branch: string | null;
  commit: string | null;
  /** A link to the commit, when the CI's run URL names a GitHub-like repository host. */
  commitUrl: string | null;
  repository: string | null;
  /** The workflow and/or job. */
  job: string | null;
  runUrl: string | null;
  buildNumber: string | null;
  tests: TestSummary | null;
  /** A release's version (`payload.version`, else the CI's tag), name and notes. */
  release: {
    version: string | null;
    name: string | null;
    url: string | null;
    notes: string | null;
  } | null;
  createdAt: string;
  /** The project's page on this server, when PUBLIC_URL is set. */
  pageUrl: string | null;
  /**
   * The run this event reports on, when the CI names it: its later reports edit the message its
   * first one made (absent in jobs queued before runs were known: a message of its own).
   */
  run?: RunIdentity | null;
  /** A regression alert (the `alerts` rule), when this summary tells of one, not of an event. */
  alert?: AlertSummary | null;
  /** A channel's digest, when this summary is one. */
  digest?: DigestSummary | null;
  /** Tests that became flaky (the `flaky` rule), when this summary tells of them. */
  flaky?: FlakySummary | null;
  /**
   * What judging found on the run's metric records (its duration against the base, its
   * regressions), added when the message is sent; never stored in the outbox job.
   */
  facts?: RunFacts | null;
  /**
   * The event's id, which test results name (ingest-tests' `eventId`): the message finds its
   * run's test results by it (absent in jobs queued before).
   */
  eventId?: string | null;
  /**
   * What the test results sent for the event say (its counts, new and flaky failures), added
   * when the message is sent; never stored in the outbox job.
   */
  runTests?: RunTests | null;
}

/** The tests a run's results made flaky (docs/tests.md's flakiness), the flakiest first. */
export interface FlakySummary {
  tests: { id: string; name: string; score: number }[];
  /** How many more became flaky than `tests` lists. */
  more: number;
}

/** A regression alert of the verdicts (docs/verdicts.md): a value beyond its limit. */
export interface AlertSummary {
  key: string;
  value: number;
  baseline: number | null;
  limit: number;
  side: 'lower' | 'upper';
  /** The comparison that judged it (`percentage`, `t_test`…). */
  test: string;
}

/**
 * A job's run on the CI: `key` is the same for every report of that job of that run, re-runs
 * (later attempts) included, so they all edit one message; `attempt` is the CI's, when told.
 */
export interface RunIdentity {
  key: string;
  attempt: number | null;
  /**
   * The run without the event type (repository, build id, job): what its metric records name
   * too, so the facts judged on them find the run's messages (absent in older jobs).
   */
  ref?: string;
  /** The CI's build id alone, for test results sent without the event (absent in older jobs). */
  build?: string;
}

/**
 * A build and attempt as test results name them (ingest-tests' `buildId` and `attempt`): how
 * results sent without the event's id find the run's messages.
 */
export const buildKeyOf = (build: string, attempt: number) => JSON.stringify([build, attempt]);

/** The build and attempt a run's message was sent for, if its run names its build. */
export const runBuildKey = (run: RunIdentity | null | undefined) =>
  run?.build === undefined ? undefined : buildKeyOf(run.build, run.attempt ?? 1);

/** Where the findings of test results sent for a build, without its event, are kept. */
export const buildTestsKey = (buildKey: string) => `build:${buildKey}`;

export interface TestSummary {
  total: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  durationMs: number | null;
  /** The first failing tests' names, as the payload lists them. */
  failures: string[];
}

/** Events of these types are releases and deploys (the `releases` rule). */
export const RELEASE_TYPES: ReadonlySet<string> = new Set(['release', 'deploy', 'deployment']);

const MAX_TEXT = 2000;
const MAX_FAILURES = 10;

const str = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.slice(0, MAX_TEXT) : null;
const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
const obj = (value: unknown): Record<string, unknown> =>
  isJsonObject(value) ? (value as Record<string, unknown>) : {};

/** Only http(s) links get into a message: a payload cannot make a `javascript:` button. */
function link(value: unknown): string | null {
  const text = str(value);
  if (!text) return null;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

function tests(value: unknown): TestSummary | null {
  const t = obj(value);
  const total = num(t.total);
  if (total === null) return null;
  const failures = Array.isArray(t.failures)
    ? t.failures
        .map((failure) => str(obj(failure).name) ?? str(failure))
        .filter((name): name is string => name !== null)
        .slice(0, MAX_FAILURES)
    : [];
  return {
    total,
    passed: num(t.passed) ?? 0,
    failed: num(t.failed) ?? 0,
    errors: num(t.errors) ?? 0,
    skipped: num(t.skipped) ?? 0,
    durationMs: num(t.duration_ms),
    failures,
  };
}

/** The commit's page: `<server>/<owner>/<repo>/commit/<sha>` when the run URL is on that server. */
function commitUrl(runUrl: string | null, repository: string | null, commit: string | null) {
  if (!runUrl || !repository || !commit || !/^[0-9a-f]{7,64}$/i.test(commit)) return null;
  const url = new URL(runUrl);
  if (!url.pathname.startsWith(`/${repository}/`)) return null;
  return `${url.origin}/${repository}/commit/${commit}`;
}

export interface SummaryInput {
  projectId: string;
  projectName: string;
  eventType: string;
  description: string | null;
  payload: Record<string, unknown> | null;
  branch: string | null;
  status: string | null;
  createdAt: number;
  pageUrl: string | null;
  /** The stored event's id. */
  eventId?: string | null;
}

/**
 * The run an event reports on: the CI's build id (`ci.build_id`, else GitHub's `run_id`) with
 * the repository, the event type and the job, since each job of a workflow reports apart and
 * each deserves its own message. No build id: no run (every report a message of its own).
 */
function runOf(
  eventType: string,
  ci: Record<string, unknown>,
  github: Record<string, unknown>,
  repository: string | null,
  job: string | null,
): RunIdentity | null {
  const runId = num(github.run_id);
  const build = str(ci.build_id) ?? (runId === null ? null : String(runId));
  if (build === null) return null;
  const key = JSON.stringify([repository, build, eventType, job]);
  const ref = JSON.stringify([repository, build, job]);
  return { key, attempt: num(github.run_attempt), ref, build };
}

/** The repository, the commit and the workflow and job a payload's `ci` and `github` name. */
function placeOf(ci: Record<string, unknown>, github: Record<string, unknown>) {
  const job = [str(github.workflow), str(ci.job) ?? str(github.job)]
    .filter((part): part is string => part !== null)
    .filter((part, i, all) => all.indexOf(part) === i)
    .join(' · ');
  return {
    repository: str(ci.repository) ?? str(github.repository),
    commit: str(ci.commit) ?? str(github.sha),
    job: job === '' ? null : job,
  };
}

/**
 * The run a metric record was reported from (the same `ref` and attempt as its event's run),
 * or null when its payload names no build.
 */
export function recordRunOf(payload: Record<string, unknown>): RunIdentity | null {
  const ci = obj(payload.ci);
  const github = obj(payload.github);
  const { repository, job } = placeOf(ci, github);
  return runOf('', ci, github, repository, job);
}

export function summarize(input: SummaryInput): EventSummary {
  const payload = input.payload ?? {};
  const ci = obj(payload.ci);
  const github = obj(payload.github);
  const runUrl = link(ci.build_url);
  const { repository, commit, job } = placeOf(ci, github);
  const isRelease = RELEASE_TYPES.has(input.eventType);
  return {
    projectId: input.projectId,
    projectName: input.projectName,
    eventType: input.eventType,
    description: input.description,
    status: input.status,
    previousStatus: null,
    branch: input.branch,
    commit,
    commitUrl: commitUrl(runUrl, repository, commit),
    repository,
    job,
    runUrl,
    buildNumber: str(ci.build_number),
    tests: tests(payload.tests),
    release: isRelease
      ? {
          version: str(payload.version) ?? str(ci.tag),
          name: str(payload.name),
          url: link(payload.url),
          notes: str(payload.notes),
        }
      : null,
    createdAt: new Date(input.createdAt).toISOString(),
    pageUrl: input.pageUrl,
    run: runOf(input.eventType, ci, github, repository, job),
    eventId: input.eventId ?? null,
  };
}
