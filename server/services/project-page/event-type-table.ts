import type { ViewRange } from '../../domain/view-ranges.js';
import type { Storage } from '../../storage/storage.js';
import type { StatsService } from '../stats-service.js';

/** Event types in the table, at most (the first in byte order; the rest are left out, said so). */
export const MAX_EVENT_TYPES = 30;

/** One row of the table by event type. */
export interface EventTypeRow {
  eventType: string;
  runs: number;
  success: number;
  failure: number;
  cancelled: number;
  other: number;
  /** success ÷ (success + failure); null when both are 0. */
  successRate: number | null;
}

/**
 * The range's events by type, as the build-health bars count them: the types come from the hour
 * cells, and each type's counts from the build summary of that type in one bucket (cells and the
 * records at the edges and not folded yet), so the figures are exact without scanning records.
 */
export async function eventTypeTable(
  storage: Storage,
  stats: StatsService,
  accountId: string,
  projectId: string,
  range: Pick<ViewRange, 'from' | 'to'>,
  branch: string | undefined,
): Promise<{ rows: EventTypeRow[]; more: boolean }> {
  const { from, to } = range;
  const types = await storage.projectPage.eventTypes(
    projectId,
    from,
    to,
    branch,
    MAX_EVENT_TYPES + 1,
  );
  const rows = await Promise.all(
    types.slice(0, MAX_EVENT_TYPES).map(async (eventType): Promise<EventTypeRow> => {
      const summary = await stats.buildSummary(accountId, {
        projectId,
        from,
        to,
        branch,
        eventType,
        buckets: 1,
      });
      const [b] = summary.buckets;
      const counts = {
        success: b?.success ?? 0,
        failure: b?.failure ?? 0,
        cancelled: b?.cancelled ?? 0,
        other: b?.other ?? 0,
      };
      return {
        eventType,
        runs: counts.success + counts.failure + counts.cancelled + counts.other,
        ...counts,
        successRate: summary.success_rate,
      };
    }),
  );
  // A type whose hours touch the range but whose events all lie outside it is left out.
  return { rows: rows.filter((row) => row.runs > 0), more: types.length > MAX_EVENT_TYPES };
}
