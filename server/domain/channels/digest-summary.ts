import type { ChannelRules, Digest } from '../../../contract/channels.js';
import { branchWanted } from './channel-rules.js';
import { RELEASE_TYPES } from './event-summary.js';

/** How many events of a project had this branch, type and status in a period (storage's answer). */
export interface EventCount {
  branch: string | null;
  eventType: string;
  status: string | null;
  count: number;
}

/** What one period held, for the channel's branches and event types. */
export interface PeriodFigures {
  /** Events other than releases and deploys. */
  builds: number;
  /** Of those, status `success` and `failure`. */
  passed: number;
  failed: number;
  /** Release and deploy events. */
  releases: number;
}

/** A digest: the period's figures beside the period before's, and the alerts active now. */
export interface DigestSummary {
  every: Digest['every'];
  from: string;
  to: string;
  current: PeriodFigures;
  previous: PeriodFigures;
  activeAlerts: number;
  /** How many of the project's tests became flaky in the period (the flaky check's). */
  newFlaky: number;
  /** The median build duration over the period and the one before; null: no duration key. */
  duration: DurationTrend | null;
}

/** The project's build-duration key's median in a digest's period and in the one before. */
export interface DurationTrend {
  key: string;
  /** The one branch it was read on; null: every branch. */
  branch: string | null;
  /** Its unit (declared, else from the key's name), for showing the values. */
  unit: string | null;
  /** null: no value in that period. */
  current: number | null;
  previous: number | null;
}

/** The figures of the counts that the channel's `branches` and `eventTypes` let through. */
export function figuresOf(counts: readonly EventCount[], rules: ChannelRules): PeriodFigures {
  const figures: PeriodFigures = { builds: 0, passed: 0, failed: 0, releases: 0 };
  for (const row of counts) {
    if (rules.eventTypes?.length && !rules.eventTypes.includes(row.eventType)) continue;
    if (!branchWanted(rules, row.branch)) continue;
    if (RELEASE_TYPES.has(row.eventType)) {
      figures.releases += row.count;
      continue;
    }
    figures.builds += row.count;
    if (row.status === 'success') figures.passed += row.count;
    if (row.status === 'failure') figures.failed += row.count;
  }
  return figures;
}

/** The share of passed among the builds that passed or failed; null when none did. */
export const successRate = (figures: PeriodFigures): number | null =>
  figures.passed + figures.failed === 0 ? null : figures.passed / (figures.passed + figures.failed);
