import type { AttentionReason, ProjectSummary } from '../../../contract/summaries.js';

/** What calls for a look at a project, most pressing first. */
export function attentionOf(summary: Omit<ProjectSummary, 'attention'>): AttentionReason[] {
  const reasons: AttentionReason[] = [];
  if (summary.latest?.status === 'failure') reasons.push('latest-failed');
  if (summary.active_alerts > 0) reasons.push('active-alerts');
  if (summary.failure > 0) reasons.push('failures');
  if (summary.flaky_tests > 0) reasons.push('flaky-tests');
  return reasons;
}

/**
 * The order of the overview: a project whose latest build failed first, then by active alerts
 * (more first), then by success rate (lower first; none last), then by flaky tests (more first),
 * then by name.
 */
export function byAttention(a: ProjectSummary, b: ProjectSummary): number {
  const failed = (s: ProjectSummary) => (s.latest?.status === 'failure' ? 1 : 0);
  return (
    failed(b) - failed(a) ||
    b.active_alerts - a.active_alerts ||
    (a.success_rate ?? 2) - (b.success_rate ?? 2) ||
    b.flaky_tests - a.flaky_tests ||
    a.name.localeCompare(b.name) ||
    a.id.localeCompare(b.id)
  );
}
