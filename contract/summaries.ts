/**
 * GET /stats/get-project-summaries (issue 28): every project of the caller at a glance over the
 * last 7 days, the one that needs attention first (docs/api.md).
 */

/** One day of a project's week. */
export interface SummaryDay {
  start: string;
  /** Events with status success and failure that day. */
  success: number;
  failure: number;
  /** success / (success + failure); null on a day without either. */
  success_rate: number | null;
  /** The day's median of the duration key; null without a value (or without a duration key). */
  median_duration: number | null;
}

/** Why a project is listed early (in this order of weight). */
export type AttentionReason = 'latest-failed' | 'active-alerts' | 'failures' | 'flaky-tests';

export interface ProjectSummary {
  id: string;
  name: string;
  /** The latest event that has a status (any time), and its type; null: none has one. */
  latest: { status: string; event_type: string } | null;
  /** Over the 7 days: events that succeeded and failed, and success / (success + failure). */
  success: number;
  failure: number;
  success_rate: number | null;
  /** The series key taken as the build's duration (`duration_ms` when the project has it). */
  duration_key: string | null;
  /** The 7 days' median of that key (within 2 %, as every p50 of the statistics). */
  median_duration: number | null;
  /** The 7 days one by one, oldest first (the sparkline). */
  days: SummaryDay[];
  /** Regression alerts not dismissed. */
  active_alerts: number;
  /** Tests found flaky over the 7 days. */
  flaky_tests: number;
  attention: AttentionReason[];
}

/** The answer: the 7 days' range and the projects, the one that most needs attention first. */
export interface ProjectSummaries {
  from: string;
  to: string;
  projects: ProjectSummary[];
}
