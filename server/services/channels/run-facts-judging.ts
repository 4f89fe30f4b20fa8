import { hearsOfBuilds } from '../../domain/channels/channel-rules.js';
import { recordRunOf } from '../../domain/channels/event-summary.js';
import {
  changeOf,
  DURATION_BASE_DAYS,
  mergeRunFacts,
  type RunDuration,
  type RunFacts,
  tellsAnything,
} from '../../domain/channels/run-facts.js';
import { newRecordId } from '../../domain/ids.js';
import { unitOf } from '../../domain/unit-format.js';
import type { ChannelRunUpdateJob } from '../../outbox/outbox-jobs.js';
import type {
  JudgedRecord,
  JudgedValue,
  Repositories,
  StoredChannel,
} from '../../storage/storage.js';
import { projectDurationKey } from '../project-page/headline-service.js';
import { readSeries } from '../stats-service.js';

const DAY_MS = 86_400_000;

/** How long a run's facts are kept for its messages (as long as the messages' ids). */
export const RUN_FACTS_DAYS = 30;

/** What judging knows of a project for its runs' facts, read once per batch. */
export interface RunFactsContext {
  channels?: StoredChannel[];
  /** The project's build-duration key (null: none), and its series' declared units. */
  durationKey?: string | null;
  units?: Map<string, string | null>;
}

export interface JudgedRun {
  record: JudgedRecord;
  payload: Record<string, unknown>;
  values: readonly JudgedValue[];
  /** The regressions judged on the record (each a value beyond its limit). */
  regressions: readonly JudgedValue[];
  /** The branch its values are compared with (the pull request's target, else the default). */
  baseBranch: string;
}

/**
 * Judging found the verdicts of a record reported from a CI run (its payload names the build):
 * the run's facts (its build duration against the base branch's median, its regressions) are
 * added to what its other records gave, and when they changed, each channel of the project is
 * queued a run update in its lane, behind the run's build message if that is still queued, so the
 * message is sent again with them (edited where the platform can). Only for a project with
 * channels; all in the judging transaction.
 */
export async function recordRunFacts(
  tx: Repositories,
  ctx: RunFactsContext,
  judged: JudgedRun,
): Promise<void> {
  const { record, payload } = judged;
  const run = recordRunOf(payload);
  if (!run?.ref) return;
  ctx.channels ??= await tx.channels.list(record.projectId);
  if (ctx.channels.length === 0) return;
  if (ctx.durationKey === undefined) {
    ctx.durationKey = (await projectDurationKey(tx, record.projectId)).duration_key;
  }
  const key = ctx.durationKey;
  const own = key === null ? undefined : judged.values.find((value) => value.key === key);
  if (judged.regressions.length === 0 && own === undefined) return;
  ctx.units ??= new Map(
    (await tx.verdicts.seriesSettings(record.projectId)).map((s) => [s.key, s.unit]),
  );
  const units = ctx.units;
  const unit = (name: string) => unitOf(name, units.get(name));

  let duration: RunDuration | null = null;
  if (key !== null && own !== undefined) {
    const read = await readSeries(tx, {
      projectId: record.projectId,
      key,
      branch: judged.baseBranch,
      from: record.createdAt - DURATION_BASE_DAYS * DAY_MS,
      to: record.createdAt,
      buckets: 1,
    });
    duration = {
      key,
      value: own.value,
      unit: unit(key),
      base: read.total?.p50 ?? null,
      baseBranch: judged.baseBranch,
    };
  }
  const facts: RunFacts = {
    attempt: run.attempt,
    duration,
    regressions: judged.regressions.map((row) => ({
      key: row.key,
      value: row.value,
      baseline: row.baseline,
      change: changeOf(row.value, row.baseline),
      unit: unit(row.key),
    })),
    regressionCount: judged.regressions.length,
  };
  if (!tellsAnything(facts)) return;
  const stored = await tx.channels.runFacts(record.projectId, run.ref);
  const merged = JSON.stringify(
    mergeRunFacts(stored === undefined ? undefined : (JSON.parse(stored) as RunFacts), facts),
  );
  if (merged === stored) return;
  const now = Date.now();
  await tx.channels.storeRunFacts(
    record.projectId,
    run.ref,
    merged,
    now,
    now - RUN_FACTS_DAYS * DAY_MS,
  );
  // Only a channel that may have heard of the build has a message to update.
  for (const channel of ctx.channels.filter(hearsOfBuilds)) {
    const job: ChannelRunUpdateJob = {
      kind: 'channel-run-update',
      channelId: channel.id,
      projectId: record.projectId,
      runRef: run.ref,
      messageId: `msg_${newRecordId()}`,
    };
    await tx.outbox.enqueue(job);
  }
}
