import type { DiscordWebhookTarget } from '../../../contract/discord-webhook.js';
import { isJsonObject } from '../../../contract/json.js';
import type { Direction } from '../../../contract/verdicts.js';
import { newRecordId } from '../../domain/ids.js';
import { seriesOf } from '../../domain/record-facts.js';
import {
  computeLimits,
  defaultThreshold,
  judge,
  type Limits,
  MAX_SAMPLE_SIZE_DEFAULT,
  type ThresholdModel,
  type ThresholdTest,
} from '../../domain/verdicts/index.js';
import {
  commitOf,
  declarationsOf,
  type PullRequestFacts,
  pullRequestOf,
} from '../../domain/verdicts/record-context.js';
import { keyMatches, matchThreshold } from '../../domain/verdicts/threshold-match.js';
import type { ChatNotificationJob } from '../../outbox/outbox-jobs.js';
import type {
  JudgedRecord,
  JudgedValue,
  NewAlert,
  PendingMetric,
  Repositories,
  StoredChannel,
  ThresholdRow,
} from '../../storage/storage.js';
import { alertMessages } from '../channels/alert-messages.js';
import { type RunFactsContext, recordRunFacts } from '../channels/run-facts-judging.js';
import { type TouchedSeries, updateSeriesChangePoints } from './change-point-update.js';
import { defaultBranchOf } from './default-branch.js';

/** What judging needs of a project, read once per batch. */
export interface ProjectContext extends RunFactsContext {
  name: string;
  directions: Map<string, Direction>;
  thresholds: ThresholdRow[];
  defaultThreshold: boolean;
  /** The owner's default branch, or null (then main, or master: computed per record). */
  defaultBranchSet: string | null;
  /** The default branch in force, read once per batch (again after a record of main or master). */
  defaultBranch: string | undefined;
  webhook: DiscordWebhookTarget | null;
  /** The project's channels, read at its first alert or run of the batch (issue 30). */
  channels?: StoredChannel[];
}

/**
 * Where a value's baseline comes from: a branch, through a place in time order (inclusive), the
 * time then the position, since an import stores history after newer records (docs/decisions.md).
 */
interface Base {
  branch: string;
  throughAt: number;
  through: number;
  commit: string | null;
}

export const modelOf = (row: ThresholdRow): ThresholdModel => ({
  test: row.test as ThresholdTest,
  lower_boundary: row.lowerBoundary,
  upper_boundary: row.upperBoundary,
  ...(row.minSampleSize === null ? {} : { min_sample_size: row.minSampleSize }),
  ...(row.maxSampleSize === null ? {} : { max_sample_size: row.maxSampleSize }),
  ...(row.windowSeconds === null ? {} : { window_seconds: row.windowSeconds }),
});

export async function contextOf(tx: Repositories, projectId: string): Promise<ProjectContext> {
  const [project, settings, series, thresholds] = await Promise.all([
    tx.projects.find(projectId),
    tx.verdicts.projectSettings(projectId),
    tx.verdicts.seriesSettings(projectId),
    tx.verdicts.thresholds(projectId),
  ]);
  let webhook: DiscordWebhookTarget | null = null;
  if (settings.chatWebhook !== null) webhook = JSON.parse(settings.chatWebhook);
  return {
    name: project?.name ?? '',
    directions: new Map(series.map((s) => [s.key, s.direction])),
    thresholds,
    defaultThreshold: settings.defaultThreshold,
    defaultBranchSet: settings.defaultBranch,
    defaultBranch: undefined,
    webhook,
  };
}

/** The verdict of one value against its base, and the alert it raises (regressions only). */
async function judgeValue(
  tx: Repositories,
  ctx: ProjectContext,
  record: JudgedRecord,
  key: string,
  value: number,
  base: Base,
): Promise<{ row: JudgedValue; limits: Limits | undefined; side: 'lower' | 'upper' | null }> {
  const direction = ctx.directions.get(key) ?? null;
  const threshold = matchThreshold(ctx.thresholds, key, base.branch);
  const model = threshold
    ? modelOf(threshold)
    : ctx.defaultThreshold
      ? defaultThreshold(direction)
      : undefined;
  const row: JudgedValue = {
    ...uncompared(record, key, value),
    verdict: direction === null ? 'no-direction' : 'no-baseline',
    test: model?.test ?? null,
    baseBranch: base.branch,
    baseCommit: base.commit,
  };
  // Without a model there are no limits; without a direction and a threshold of its own, a
  // value is not compared at all (that keeps judging free for keys nobody has described).
  if (!model || (direction === null && !threshold)) {
    return { row, limits: undefined, side: null };
  }
  const sample = await tx.verdicts.baseline({
    projectId: record.projectId,
    key,
    branch: base.branch,
    throughAt: base.throughAt,
    throughSeq: base.through,
    since:
      model.window_seconds === undefined
        ? undefined
        : record.createdAt - model.window_seconds * 1000,
    limit: model.max_sample_size ?? MAX_SAMPLE_SIZE_DEFAULT,
  });
  const limits = computeLimits(model, sample);
  const judgement = judge(value, limits, direction);
  row.verdict = judgement.verdict;
  row.sampleSize = sample.length;
  if (limits) {
    row.baseline = limits.baseline;
    row.lowerLimit = limits.lower_limit;
    row.upperLimit = limits.upper_limit;
    row.sampleSize = limits.sample_size;
  }
  return { row, limits, side: judgement.side };
}

/**
 * The base of a record that comes from a pull request: the target branch up to and including
 * its record of the pull request's base commit, else up to the record's own position.
 */
async function pullRequestBase(
  tx: Repositories,
  record: JudgedRecord,
  pr: PullRequestFacts,
): Promise<Base> {
  const atBase =
    pr.baseSha === null
      ? undefined
      : await tx.verdicts.seqOfCommit(record.projectId, pr.target, pr.baseSha, record.seq);
  const baseRecord = atBase === undefined ? undefined : await tx.verdicts.recordAt(atBase);
  if (atBase !== undefined && baseRecord) {
    return {
      branch: pr.target,
      throughAt: baseRecord.createdAt,
      through: atBase,
      commit: pr.baseSha,
    };
  }
  return branchBase(tx, record, pr.target);
}

/** A branch's values before the record, and the commit of the latest of them. */
async function branchBase(tx: Repositories, record: JudgedRecord, branch: string): Promise<Base> {
  const latest = await tx.verdicts.latestOnBranch(record.projectId, branch, record.seq - 1);
  return {
    branch,
    throughAt: record.createdAt,
    through: record.seq - 1,
    commit: latest?.commit ?? null,
  };
}

/**
 * Judges one batch of stored metric records, oldest first, in one transaction: each record's
 * declared units and directions, then each of its values against its base (docs/verdicts.md),
 * alerts for regressions (notified on the default branch when the project has a chat webhook),
 * and the change points of the default branch's series. Returns how many records and values it
 * judged.
 */
export async function judgeBatch(
  tx: Repositories,
  limit: number,
): Promise<{ records: number; values: number }> {
  const { metrics, token } = await tx.verdicts.pending(limit);
  if (metrics.length === 0) return { records: 0, values: 0 };
  let values = 0;
  const contexts = new Map<string, ProjectContext>();
  // Series of the default branch that got values (with the earliest of them in time order):
  // their change points are brought up to date.
  const defaultSeries = new Map<string, TouchedSeries>();
  for (const metric of metrics) {
    const judged = await judgeRecord(tx, metric, contexts);
    values += judged.values;
    for (const series of judged.touched) {
      const id = `${series.projectId}\n${series.key}`;
      const seen = defaultSeries.get(id);
      // Records come in seq order: a later one is earlier only when back-dated.
      if (!seen || series.earliest.at < seen.earliest.at) defaultSeries.set(id, series);
    }
  }
  for (const series of defaultSeries.values()) await updateSeriesChangePoints(tx, series);
  await tx.verdicts.judged(token);
  return { records: metrics.length, values };
}

/** A regression to raise as an alert. */
export interface AlertCandidate {
  row: JudgedValue;
  side: 'lower' | 'upper';
  limit: number;
}

/**
 * Judges the values of one record (`series`: key and value) against their bases under the
 * project's settings in `ctx`: the verdict rows, the regressions, and whether the record is of
 * the default branch. Shared by judging as records arrive and by re-evaluation.
 */
export async function judgeSeries(
  tx: Repositories,
  ctx: ProjectContext,
  record: JudgedRecord,
  payload: Record<string, unknown>,
  series: readonly (readonly [string, number])[],
): Promise<{
  values: JudgedValue[];
  alerts: AlertCandidate[];
  onDefault: boolean;
  defaultBranch: string;
}> {
  ctx.defaultBranch ??= await defaultBranchOf(tx, record.projectId, ctx.defaultBranchSet);
  const defaultBranch = ctx.defaultBranch;
  // Without a branch set, the first record of main (or master) may change which one it is; a
  // record of the branch already in force cannot (main wins once it has a record), so a run of
  // records on main does not read the default branch again for each one.
  if (
    ctx.defaultBranchSet === null &&
    (record.branch === 'main' || record.branch === 'master') &&
    record.branch !== defaultBranch
  ) {
    ctx.defaultBranch = undefined;
  }
  const pr = pullRequestOf(payload);
  const fromPullRequest = pr !== undefined && pr.target !== record.branch;
  const onDefault = !fromPullRequest && record.branch === defaultBranch;
  // A key with no direction and no threshold that could match is stored, not compared: judging
  // costs nothing more for series nobody described.
  const compared = (key: string) =>
    (ctx.directions.get(key) ?? null) !== null ||
    ctx.thresholds.some((t) => keyMatches(t.key, key));
  let recordBase: Base | undefined;
  if (series.some(([key]) => compared(key))) {
    if (fromPullRequest) recordBase = await pullRequestBase(tx, record, pr);
    else if (onDefault) recordBase = await branchBase(tx, record, defaultBranch);
  }

  const values: JudgedValue[] = [];
  const alerts: AlertCandidate[] = [];
  for (const [key, value] of series) {
    if (!compared(key)) {
      values.push(uncompared(record, key, value));
      continue;
    }
    let base = recordBase;
    if (!base) {
      // Another branch: its own history of the key, else the default branch's.
      const own = record.branch ?? '';
      const hasOwn = await tx.verdicts.hasHistory(record.projectId, key, own, {
        at: record.createdAt,
        seq: record.seq,
      });
      base = await branchBase(tx, record, hasOwn ? own : defaultBranch);
    }
    const judged = await judgeValue(tx, ctx, record, key, value, base);
    values.push(judged.row);
    if (judged.row.verdict === 'regression' && judged.side) {
      const limit = judged.side === 'upper' ? judged.row.upperLimit : judged.row.lowerLimit;
      if (limit !== null) alerts.push({ row: judged.row, side: judged.side, limit });
    }
  }
  return { values, alerts, onDefault, defaultBranch };
}

async function judgeRecord(
  tx: Repositories,
  metric: PendingMetric,
  contexts: Map<string, ProjectContext>,
): Promise<{ touched: TouchedSeries[]; values: number }> {
  const parsed: unknown = metric.parsed ?? JSON.parse(metric.payload);
  const payload = isJsonObject(parsed) ? parsed : {};
  const declared = declarationsOf(payload);
  if (declared.ok && declared.value.units.length + declared.value.directions.length > 0) {
    await tx.verdicts.declareSeries(
      metric.projectId,
      declared.value.units,
      declared.value.directions,
    );
    contexts.delete(metric.projectId);
  }
  let ctx = contexts.get(metric.projectId);
  if (!ctx) {
    ctx = await contextOf(tx, metric.projectId);
    contexts.set(metric.projectId, ctx);
  }
  const record: JudgedRecord = {
    seq: metric.seq,
    id: metric.id,
    projectId: metric.projectId,
    branch: metric.branch,
    commit: commitOf(payload),
    createdAt: metric.createdAt,
  };
  const { values, alerts, onDefault, defaultBranch } = await judgeSeries(
    tx,
    ctx,
    record,
    payload,
    seriesOf(payload),
  );
  await tx.verdicts.storeJudged(record, values);
  for (const alert of alerts) {
    const created = await tx.verdicts.createAlert(newAlertOf(record, alert));
    // Only the default branch's regressions are announced: a pull request's are its own.
    if (created && onDefault && ctx.webhook) {
      await tx.outbox.enqueue(alertNotification(ctx, record, alert.row, alert.side, alert.limit));
    }
    if (created && onDefault) {
      ctx.channels ??= await tx.channels.list(record.projectId);
      const jobs = alertMessages(ctx.channels, {
        projectId: record.projectId,
        projectName: ctx.name,
        branch: record.branch,
        commit: record.commit,
        createdAt: record.createdAt,
        alert: {
          key: alert.row.key,
          value: alert.row.value,
          baseline: alert.row.baseline,
          limit: alert.limit,
          side: alert.side,
          test: alert.row.test ?? '',
        },
      });
      for (const job of jobs) await tx.outbox.enqueue(job);
    }
  }
  // The run's build messages tell its duration against the base and its regressions.
  const pr = pullRequestOf(payload);
  await recordRunFacts(tx, ctx, {
    record,
    payload,
    values,
    regressions: alerts.map((alert) => alert.row),
    baseBranch: pr !== undefined && pr.target !== record.branch ? pr.target : defaultBranch,
  });
  const earliest = { at: record.createdAt, seq: record.seq };
  const touched = onDefault
    ? values.map((v) => ({
        projectId: record.projectId,
        key: v.key,
        branch: defaultBranch,
        earliest,
      }))
    : [];
  return { touched, values: values.length };
}

/** The alert of a regression of `record` (its time is the record's). */
export const newAlertOf = (record: JudgedRecord, alert: AlertCandidate): NewAlert => ({
  id: newRecordId(),
  projectId: record.projectId,
  key: alert.row.key,
  branch: record.branch,
  recordId: record.id,
  commit: record.commit,
  value: alert.row.value,
  baseline: alert.row.baseline,
  limit: alert.limit,
  side: alert.side,
  test: alert.row.test ?? '',
  createdAt: record.createdAt,
});

/** A value stored without a comparison: no direction, no threshold. */
const uncompared = (record: JudgedRecord, key: string, value: number): JudgedValue => ({
  seq: record.seq,
  key,
  projectId: record.projectId,
  branch: record.branch ?? '',
  createdAt: record.createdAt,
  value,
  verdict: 'no-direction',
  baseline: null,
  lowerLimit: null,
  upperLimit: null,
  test: null,
  sampleSize: null,
  baseBranch: null,
  baseCommit: null,
});

function alertNotification(
  ctx: ProjectContext,
  record: JudgedRecord,
  value: JudgedValue,
  side: 'lower' | 'upper',
  limit: number,
): ChatNotificationJob {
  const commit = record.commit ? ` at ${record.commit.slice(0, 12)}` : '';
  return {
    kind: 'chat-notification',
    webhook: ctx.webhook as DiscordWebhookTarget,
    title: `Regression: ${value.key}`,
    description:
      `${value.key} = ${value.value} on ${record.branch}${commit}: beyond the ${side} limit ` +
      `${limit} (baseline ${value.baseline ?? 'none'}, ${value.test}).`,
    color: 0xd73a49,
    projectId: record.projectId,
    projectName: ctx.name,
    eventType: 'alert',
    eventCreatedAt: new Date(record.createdAt).toISOString(),
  };
}
