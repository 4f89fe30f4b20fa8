import { isJsonObject } from '../../../contract/json.js';
import {
  REEVALUATE_MAX_RECORDS,
  type ReevaluateRequest,
  type Reevaluation,
} from '../../../contract/verdicts.js';
import { newRecordId } from '../../domain/ids.js';
import { keyMatches } from '../../domain/verdicts/threshold-match.js';
import type { JudgedRecord, Repositories, Storage } from '../../storage/storage.js';
import type { ProjectAccess } from '../project-access.js';
import { contextOf, judgeSeries, newAlertOf, type ProjectContext } from './judging.js';
import type { JudgingWorker } from './judging-worker.js';

const NO_LOWER = Number.MIN_SAFE_INTEGER;
const NO_UPPER = Number.MAX_SAFE_INTEGER;

const isoOrNull = (ms: number | undefined) =>
  ms === undefined ? null : new Date(ms).toISOString();

/**
 * Re-evaluation (docs/verdicts.md): the owner asks for stored values to be judged again under the
 * current settings. The request only queues the range (at most REEVALUATE_MAX_RECORDS records,
 * the oldest, read in time order through an index from the range's start); the judging worker
 * re-judges it a batch at a time, off the request path, after any newly stored records.
 */
export function reevaluations(
  storage: Storage,
  access: ProjectAccess,
  judging: Pick<JudgingWorker, 'wake' | 'catchUp'>,
) {
  return {
    async request(accountId: string, request: ReevaluateRequest): Promise<Reevaluation> {
      await access.assertOwn({ accountId, projectIds: null }, request.projectId);
      // The records stored before the request count too (as every read that shows verdicts).
      await judging.catchUp();
      const range = { projectId: request.projectId, branch: request.branch ?? null };
      // `to` is exclusive; times are whole milliseconds. One more than the cap: whether the
      // range holds more than is queued.
      const found = await storage.verdicts.recordsInRange({
        ...range,
        start: { at: request.from ?? NO_LOWER, seq: NO_LOWER },
        through: { at: request.to === undefined ? NO_UPPER : request.to - 1, seq: NO_UPPER },
        limit: REEVALUATE_MAX_RECORDS + 1,
      });
      const queued = found.slice(0, REEVALUATE_MAX_RECORDS);
      const first = queued[0];
      const last = queued.at(-1);
      let id: string | null = null;
      if (first && last) {
        id = newRecordId();
        await storage.verdicts.queueReevaluation({
          id,
          ...range,
          key: request.key ?? null,
          next: { at: first.createdAt, seq: first.seq },
          last: { at: last.createdAt, seq: last.seq },
          createdAt: Date.now(),
        });
        judging.wake();
      }
      return {
        id,
        projectId: request.projectId,
        key: request.key ?? null,
        branch: request.branch ?? null,
        from: isoOrNull(request.from),
        to: isoOrNull(request.to),
        records: queued.length,
        next_from: isoOrNull(found[REEVALUATE_MAX_RECORDS]?.createdAt),
      };
    },

    /**
     * After an import of metrics made from `from` on: the records judged already from then on
     * (those stored before the import) are judged again, against the imported history too. The
     * imported records are judged as new ones first (the worker takes new records first).
     */
    async afterImport(projectId: string, from: number): Promise<void> {
      const found = await storage.verdicts.recordsInRange({
        projectId,
        branch: null,
        start: { at: from, seq: NO_LOWER },
        through: { at: NO_UPPER, seq: NO_UPPER },
        limit: REEVALUATE_MAX_RECORDS,
      });
      const first = found[0];
      const last = found.at(-1);
      if (first && last) {
        await storage.verdicts.queueReevaluation({
          id: newRecordId(),
          projectId,
          branch: null,
          key: null,
          next: { at: first.createdAt, seq: first.seq },
          last: { at: last.createdAt, seq: last.seq },
          createdAt: Date.now(),
        });
      }
      judging.wake();
    },
  };
}

export type Reevaluations = ReturnType<typeof reevaluations>;

/**
 * Re-judges the next batch (at most `limit` records) of the oldest queued re-evaluation, in the
 * caller's transaction. Returns how many records it went through (0: nothing queued).
 */
export async function reevaluateBatch(tx: Repositories, limit: number): Promise<number> {
  const job = await tx.verdicts.nextReevaluation();
  if (!job) return 0;
  const records = await tx.verdicts.recordsInRange({
    projectId: job.projectId,
    branch: job.branch,
    start: job.next,
    through: job.last,
    limit,
  });
  const ctx = await contextOf(tx, job.projectId);
  for (const record of records) await rejudge(tx, ctx, job.key, record);
  const last = records.at(-1);
  const done = records.length < limit || last === undefined;
  // Just past the last record re-judged (or the last queued: the job is then removed).
  const past = done ? job.last : { at: last.createdAt, seq: last.seq };
  await tx.verdicts.advanceReevaluation(job.id, { at: past.at, seq: past.seq + 1 });
  // A batch that found nothing left still removed its job: count it as work done.
  return Math.max(records.length, 1);
}

/**
 * Judges a record's values of `keyPattern` (null: all) again and replaces their verdicts; the
 * alerts follow: a value still a regression keeps its alert (id and status) with the new
 * judgement, a new regression gets an active alert (not announced: it is not news), and a value
 * no longer a regression loses its alert. A record whose payload retention has removed keeps
 * its verdicts (its pull-request base is no longer known).
 */
async function rejudge(
  tx: Repositories,
  ctx: ProjectContext,
  keyPattern: string | null,
  record: JudgedRecord,
): Promise<void> {
  const metric = await tx.verdicts.metricAt(record.seq);
  if (!metric) return;
  const stored = await tx.verdicts.valuesOf(record.seq);
  const chosen = stored.filter((v) => keyPattern === null || keyMatches(keyPattern, v.key));
  if (chosen.length === 0) return;
  const parsed: unknown = JSON.parse(metric.payload);
  const payload = isJsonObject(parsed) ? parsed : {};
  const { values, alerts } = await judgeSeries(
    tx,
    ctx,
    record,
    payload,
    chosen.map((v) => [v.key, v.value] as const),
  );
  const rejudged = new Map(values.map((v) => [v.key, v]));
  await tx.verdicts.replaceJudged(
    record,
    stored.map((v) => rejudged.get(v.key) ?? v),
  );
  const raised = new Map(alerts.map((alert) => [alert.row.key, alert]));
  for (const value of values) {
    const alert = raised.get(value.key);
    if (!alert) {
      await tx.verdicts.deleteAlert(record.id, value.key);
      continue;
    }
    const kept = await tx.verdicts.updateAlert(record.id, value.key, {
      value: alert.row.value,
      baseline: alert.row.baseline,
      limit: alert.limit,
      side: alert.side,
      test: alert.row.test ?? '',
    });
    if (!kept) await tx.verdicts.createAlert(newAlertOf(record, alert));
  }
}
