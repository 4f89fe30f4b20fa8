import type { ChannelRules } from '../../../contract/channels.js';
import type { DurationTrend } from '../../domain/channels/digest-summary.js';
import { unitOf } from '../../domain/unit-format.js';
import type { Storage } from '../../storage/storage.js';
import { projectDurationKey } from '../project-page/headline-service.js';
import { readSeries } from '../stats-service.js';

/** A branch name as the rules may give it: one with no glob character names one branch. */
const GLOB = /[*?[\]{}()!+@]/;

/**
 * The branch a digest's duration is read on: the channel's one branch when its rules name
 * exactly one, literally (`main`); else every branch, as the statistics have no glob filter.
 */
export function durationBranch(rules: ChannelRules): string | undefined {
  const [only, ...others] = rules.branches ?? [];
  return only !== undefined && others.length === 0 && !GLOB.test(only) ? only : undefined;
}

export type DigestDurations = (
  projectId: string,
  rules: ChannelRules,
  period: { from: number; to: number; previousFrom: number },
) => Promise<DurationTrend | null>;

/**
 * A digest's duration trend: the median of the project's build-duration key (the project page's,
 * get-duration-key) over the period and over the period before, from the statistics as the
 * headline reads them; null when the project has no duration key.
 */
export function digestDurations(
  storage: Pick<Storage, 'projectPage' | 'stats' | 'verdicts'>,
): DigestDurations {
  return async (projectId, rules, { from, to, previousFrom }) => {
    const { duration_key: key } = await projectDurationKey(storage, projectId);
    if (key === null) return null;
    const branch = durationBranch(rules);
    const median = async (start: number, end: number) =>
      (await readSeries(storage, { projectId, key, branch, from: start, to: end, buckets: 1 }))
        .total?.p50 ?? null;
    const [current, previous, settings] = await Promise.all([
      median(from, to),
      median(previousFrom, from),
      storage.verdicts.seriesSettings(projectId),
    ]);
    const declared = settings.find((setting) => setting.key === key)?.unit;
    return { key, branch: branch ?? null, unit: unitOf(key, declared), current, previous };
  };
}
