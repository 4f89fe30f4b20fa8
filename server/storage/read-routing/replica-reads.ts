import type { Repositories } from '../storage.js';

/**
 * The reads a replica may serve: those behind the pages and the `/stats/*` reads (statistics,
 * read-back, the project page's parts, tests, alerts, export pages, storage use, the ownership
 * checks before them). Everything else reads the primary, because a stale answer would be wrong there rather
 * than late: keys and sessions (a revoked key must stop at once), sites and display names (the
 * public pages' cache moves on a commit, which must be visible to what it then reads), the
 * outbox, judging and retention (workers that write from what they read).
 */
export const REPLICA_READS: { [R in keyof Repositories]?: readonly (keyof Repositories[R])[] } = {
  projects: ['list', 'find'],
  records: ['events', 'metrics'],
  stats: [
    'seriesKeys',
    'seriesKey',
    'seriesData',
    'eventData',
    'workflowSeriesData',
    'workflowEventData',
    'latestStatus',
    'latestStatusEvent',
    'branches',
  ],
  shareLinks: ['list'],
  channels: ['list'],
  verdicts: [
    'seriesSettings',
    'projectSettings',
    'thresholds',
    'threshold',
    'alerts',
    'alertsOfRecord',
    'alert',
    'changePoints',
    'changePointKeys',
    'reevaluationsQueued',
  ],
  tests: [
    'runs',
    'runsById',
    'results',
    'failures',
    'tests',
    'findTest',
    'searchTests',
    'history',
    'messages',
    'branches',
    'quarantined',
  ],
  projectPage: [
    'durationKey',
    'markEventTypes',
    'activeAlerts',
    'alertMarks',
    'eventHours',
    'eventMinutes',
    'eventTypes',
    'changePointMarks',
  ],
  exports: [
    'events',
    'metrics',
    'seqOf',
    'lastSeqBefore',
    'testRuns',
    'testResults',
    'testPosition',
  ],
  use: ['tableSizes', 'projectRows'],
};

// biome-ignore lint/suspicious/noExplicitAny: the methods of any repository.
type AnyMethod = (...args: any[]) => Promise<unknown>;

export interface ReadRouter {
  /** Whether this read (in the current request's scope) goes to the replica. */
  toReplica(): boolean;
  /** A replica read failed so: true when it should run again on the primary. */
  fallsBack(error: unknown): boolean;
  /** A call on the primary finished (a write, or a read of a writing request). */
  primaryUsed(): void;
}

/**
 * `primary`'s repositories with the reads of REPLICA_READS sent to `replica`'s when the router
 * says so (and run again on the primary when the replica failed them so); every other call runs
 * on the primary and is reported to the router, which remembers who wrote.
 */
export function routedRepositories(
  primary: Repositories,
  replica: Repositories,
  router: ReadRouter,
): Repositories {
  const routed: Record<string, unknown> = {};
  for (const [name, repository] of Object.entries(primary) as [keyof Repositories, object][]) {
    const reads = new Set<string>((REPLICA_READS[name] ?? []) as string[]);
    const onReplica = replica[name] as unknown as Record<string, AnyMethod>;
    const methods: Record<string, AnyMethod> = {};
    for (const [method, call] of Object.entries(repository as Record<string, AnyMethod>)) {
      const onPrimary = call.bind(repository);
      methods[method] = reads.has(method)
        ? async (...args) => {
            if (!router.toReplica()) return onPrimary(...args);
            try {
              return await (onReplica[method] as AnyMethod)(...args);
            } catch (error) {
              if (!router.fallsBack(error)) throw error;
              return onPrimary(...args);
            }
          }
        : async (...args) => {
            try {
              return await onPrimary(...args);
            } finally {
              router.primaryUsed();
            }
          };
    }
    routed[name] = methods;
  }
  return routed as unknown as Repositories;
}
