import type { ChannelKind } from '../../../contract/channel-targets.js';
import { formatWithUnit } from '../unit-format.js';
import { durationText } from './digest-facts.js';
import type { EventSummary } from './event-summary.js';

/**
 * What judging found on a run's metric records, for the run's build messages (issue 30): the
 * run's build duration against its base branch's median, and the regressions the verdicts found,
 * the largest change first. Stored per run (table run_facts) and read when a build message is
 * sent; a regression found after the message was sent sends it again, edited where the platform
 * can edit.
 */
export interface RunFacts {
  /** The CI's attempt the records came from (a re-run's facts replace an earlier attempt's). */
  attempt: number | null;
  duration: RunDuration | null;
  /** The largest regressions by change, at most MAX_REGRESSIONS_KEPT. */
  regressions: RunRegression[];
  /** How many regressions the run has in all (more than `regressions` lists when cut). */
  regressionCount: number;
}

/** The run's value of the project's build-duration key, and its base branch's median before it. */
export interface RunDuration {
  key: string;
  value: number;
  unit: string | null;
  /** The base branch's median of the key over the 30 days before the run; null: no value. */
  base: number | null;
  baseBranch: string | null;
}

export interface RunRegression {
  key: string;
  value: number;
  baseline: number | null;
  /** (value − baseline) / |baseline|; null without a baseline (or a zero one). */
  change: number | null;
  unit: string | null;
}

/** The regressions a run's facts keep (a message shows fewer). */
export const MAX_REGRESSIONS_KEPT = 10;
/** The regressions a build message lists, then `… and N more`. */
export const REGRESSIONS_SHOWN = 5;
/** How far back the base branch's median duration is read. */
export const DURATION_BASE_DAYS = 30;

export const changeOf = (value: number, baseline: number | null): number | null =>
  baseline === null || baseline === 0 ? null : (value - baseline) / Math.abs(baseline);

const bySize = (a: RunRegression, b: RunRegression) =>
  Math.abs(b.change ?? 0) - Math.abs(a.change ?? 0) ||
  (a.change === null ? 1 : 0) - (b.change === null ? 1 : 0) ||
  (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * One more record's facts added to the run's: a later attempt replaces an earlier one's (and an
 * earlier one's are ignored); records of one attempt add up, a key's latest regression winning.
 */
export function mergeRunFacts(previous: RunFacts | undefined, next: RunFacts): RunFacts {
  if (!previous || (next.attempt ?? 0) > (previous.attempt ?? 0)) return sorted(next);
  if ((next.attempt ?? 0) < (previous.attempt ?? 0)) return previous;
  const keys = new Set(next.regressions.map((r) => r.key));
  const kept = previous.regressions.filter((r) => !keys.has(r.key));
  const overlap = previous.regressions.length - kept.length;
  return sorted({
    attempt: next.attempt,
    duration: next.duration ?? previous.duration,
    regressions: [...kept, ...next.regressions],
    regressionCount: previous.regressionCount + next.regressionCount - overlap,
  });
}

function sorted(facts: RunFacts): RunFacts {
  const regressions = [...facts.regressions].sort(bySize);
  return {
    ...facts,
    regressions: regressions.slice(0, MAX_REGRESSIONS_KEPT),
    regressionCount: Math.max(facts.regressionCount, regressions.length),
  };
}

/** Whether the facts tell anything a message would show. */
export const tellsAnything = (facts: RunFacts): boolean =>
  facts.duration !== null || facts.regressionCount > 0;

/** `4.2 min (+12 s, +5 %) vs main's median` or `4.2 min` without a base. */
export function runDurationText(duration: RunDuration): string {
  const text = durationText({
    key: duration.key,
    branch: duration.baseBranch,
    unit: duration.unit,
    current: duration.value,
    previous: duration.base,
  });
  return duration.base === null || duration.baseBranch === null
    ? text
    : `${text} vs ${duration.baseBranch}'s median`;
}

/** `t: 200 ms (+100 %)`, one regression and its change. */
export function regressionText(regression: RunRegression): string {
  const value = formatWithUnit(regression.value, regression.unit);
  if (regression.change === null) return `${regression.key}: ${value}`;
  const percent = Math.round(regression.change * 100);
  return `${regression.key}: ${value} (${percent >= 0 ? '+' : '−'}${Math.abs(percent)} %)`;
}

/** The top regressions as lines, then `… and N more` for the rest of the run's. */
export function regressionLines(facts: RunFacts, shown = REGRESSIONS_SHOWN): string[] {
  const lines = facts.regressions.slice(0, shown).map(regressionText);
  const more = facts.regressionCount - lines.length;
  if (more > 0) lines.push(`… and ${more} more`);
  return lines;
}

/** The platforms whose messages a webhook or app can edit: the others get a new message. */
export const canEdit = (kind: ChannelKind): boolean => kind === 'discord' || kind === 'slack-app';

/**
 * A build's summary with its run's facts (`stored`: the run_facts JSON), when they are of the
 * same attempt as the report: a re-run's message does not show the earlier attempt's. Alerts,
 * digests, flaky news and releases are left as they are.
 */
export function withRunFacts(event: EventSummary, stored: string | undefined): EventSummary {
  if (stored === undefined || !event.run) return event;
  if (event.alert || event.digest || event.flaky || event.release) return event;
  const facts = JSON.parse(stored) as RunFacts;
  if ((facts.attempt ?? 1) !== (event.run.attempt ?? 1)) return event;
  return { ...event, facts };
}
