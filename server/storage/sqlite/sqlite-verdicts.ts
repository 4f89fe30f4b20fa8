import type { FreshMetrics } from '../fresh-metrics.js';
import { mergeInOrder, oldestFirst } from '../record-pages.js';
import { reevaluationOf, type StoredReevaluation } from '../reevaluation-rows.js';
import type {
  AlertRow,
  ChangePointRow,
  JudgedRecord,
  JudgedValue,
  PendingMetric,
  SeriesSetting,
  ThresholdRow,
  VerdictRepository,
} from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { SqliteTimeMarks } from './sqlite-time-marks.js';
import type { Sync } from './sync.js';

export const verdictWrites = [
  'declareSeries',
  'setSeries',
  'updateProjectSettings',
  'createThreshold',
  'replaceThreshold',
  'deleteThreshold',
  'judged',
  'storeJudged',
  'replaceJudged',
  'createAlert',
  'setAlertStatus',
  'saveChangePoints',
  'markChangePointsStale',
  'queueReevaluation',
  'advanceReevaluation',
  'updateAlert',
  'deleteAlert',
] as const;

const THRESHOLD_COLUMNS = `id, project_id AS projectId, key, branch, test,
  lower_boundary AS lowerBoundary, upper_boundary AS upperBoundary,
  min_sample_size AS minSampleSize, max_sample_size AS maxSampleSize,
  window_seconds AS windowSeconds, created_at AS createdAt`;

const ALERT_COLUMNS = `seq, id, project_id AS projectId, key, branch, record_id AS recordId,
  commit_sha AS "commit", value, baseline, limit_value AS "limit", side, test,
  created_at AS createdAt, status`;

const VALUE_COLUMNS = `seq, key, project_id AS projectId, branch, created_at AS createdAt, value,
  verdict, baseline, lower_limit AS lowerLimit, upper_limit AS upperLimit, test,
  sample_size AS sampleSize, base_branch AS baseBranch, base_commit AS baseCommit`;

const RECORD_COLUMNS = `seq, id, project_id AS projectId, branch, commit_sha AS "commit",
  created_at AS createdAt`;

const REEVALUATION_COLUMNS = `id, project_id AS projectId, key, branch, next_at AS nextAt,
  next_seq AS nextSeq, last_at AS lastAt, last_seq AS lastSeq, created_at AS createdAt`;

const CHANGE_POINT_COLUMNS = `idx AS "index", seq, record_id AS recordId, commit_sha AS "commit",
  at, before_mean AS beforeMean, after_mean AS afterMean, change, p_value AS pValue`;

type StoredSetting = Omit<SeriesSetting, 'ownerUnit' | 'ownerDirection'> & {
  ownerUnit: number;
  ownerDirection: number;
};

/** Verdicts on SQLite: see VerdictRepository. */
export function sqliteVerdicts(
  db: Db,
  marks: SqliteTimeMarks,
  fresh: FreshMetrics,
): Sync<VerdictRepository> {
  const settingsOf = db.prepare(
    `SELECT key, unit, direction, owner_unit AS ownerUnit, owner_direction AS ownerDirection
       FROM series_settings WHERE project_id = ? ORDER BY key`,
  );
  // A record's declaration changes a field only while the owner has not set it.
  const declareUnit = db.prepare(
    `INSERT INTO series_settings (project_id, key, unit) VALUES (?, ?, ?)
     ON CONFLICT DO UPDATE SET unit = excluded.unit WHERE owner_unit = 0`,
  );
  const declareDirection = db.prepare(
    `INSERT INTO series_settings (project_id, key, direction) VALUES (?, ?, ?)
     ON CONFLICT DO UPDATE SET direction = excluded.direction WHERE owner_direction = 0`,
  );
  const ownerUnit = db.prepare(
    `INSERT INTO series_settings (project_id, key, unit, owner_unit) VALUES (?, ?, ?, 1)
     ON CONFLICT DO UPDATE SET unit = excluded.unit, owner_unit = 1`,
  );
  const ownerDirection = db.prepare(
    `INSERT INTO series_settings (project_id, key, direction, owner_direction) VALUES (?, ?, ?, 1)
     ON CONFLICT DO UPDATE SET direction = excluded.direction, owner_direction = 1`,
  );
  const projectSettings = db.prepare(
    `SELECT default_branch AS defaultBranch, default_threshold AS defaultThreshold,
            chat_webhook AS chatWebhook FROM projects WHERE id = ?`,
  );
  const setDefaultBranch = db.prepare('UPDATE projects SET default_branch = ? WHERE id = ?');
  const setDefaultThreshold = db.prepare('UPDATE projects SET default_threshold = ? WHERE id = ?');
  const setChatWebhook = db.prepare('UPDATE projects SET chat_webhook = ? WHERE id = ?');
  const thresholdsOf = db.prepare(
    `SELECT ${THRESHOLD_COLUMNS} FROM thresholds WHERE project_id = ? ORDER BY created_at, id`,
  );
  const thresholdById = db.prepare(`SELECT ${THRESHOLD_COLUMNS} FROM thresholds WHERE id = ?`);
  const insertThreshold = db.prepare(
    `INSERT OR REPLACE INTO thresholds (id, project_id, key, branch, test, lower_boundary,
       upper_boundary, min_sample_size, max_sample_size, window_seconds, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const deleteThreshold = db.prepare('DELETE FROM thresholds WHERE id = ?');
  const progress = db.prepare('SELECT metrics FROM verdict_progress').pluck();
  const pendingAfter = db.prepare(
    `SELECT seq, id, project_id AS projectId, payload, created_at AS createdAt, branch
       FROM metrics WHERE seq > ? ORDER BY seq LIMIT ?`,
  );
  // Only the positions: building each row's object was most of a pending read's cost.
  const pendingSeqs = db
    .prepare('SELECT seq FROM metrics WHERE seq > ? ORDER BY seq LIMIT ?')
    .pluck();
  // The rows after the progress mark, a seek and then a walk of the primary key's tail (seq is
  // the rowid), stopped after `atMost` rows: no other row of the table is read.
  const pendingCount = db
    .prepare('SELECT count(*) FROM (SELECT 1 FROM metrics WHERE seq > ? ORDER BY seq LIMIT ?)')
    .pluck();
  const setProgress = db.prepare('UPDATE verdict_progress SET metrics = MAX(metrics, ?)');
  // A record is judged once (its progress commits with it), so its rows are plain inserts: OR
  // REPLACE would cost every judged metric a second search of each unique index (about half of
  // judging's time). Re-evaluation replaces, with the statements that do.
  const recordColumns = `judged_records (seq, id, project_id, branch, commit_sha, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`;
  const valueColumns = `metric_values (seq, key, project_id, branch, created_at, value,
       verdict, baseline, lower_limit, upper_limit, test, sample_size, base_branch, base_commit)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
  const insertRecord = db.prepare(`INSERT INTO ${recordColumns}`);
  const insertValue = db.prepare(`INSERT INTO ${valueColumns}`);
  const replaceRecord = db.prepare(`INSERT OR REPLACE INTO ${recordColumns}`);
  const deleteValues = db.prepare('DELETE FROM metric_values WHERE seq = ?');
  const store = (
    statements: { record: typeof insertRecord; value: typeof insertValue },
    record: JudgedRecord,
    values: readonly JudgedValue[],
  ) => {
    statements.record.run(
      record.seq,
      record.id,
      record.projectId,
      record.branch,
      record.commit,
      record.createdAt,
    );
    for (const v of values) {
      statements.value.run(
        v.seq,
        v.key,
        v.projectId,
        v.branch,
        v.createdAt,
        v.value,
        v.verdict,
        v.baseline,
        v.lowerLimit,
        v.upperLimit,
        v.test,
        v.sampleSize,
        v.baseBranch,
        v.baseCommit,
      );
    }
  };
  const baselineNewest = db
    .prepare(
      `SELECT value FROM metric_values
        WHERE project_id = ? AND key = ? AND branch = ? AND (created_at, seq) <= (?, ?)
          AND created_at >= ?
        ORDER BY created_at DESC, seq DESC LIMIT ?`,
    )
    .pluck();
  const seqOfCommit = db
    .prepare(
      `SELECT MAX(seq) FROM judged_records
        WHERE project_id = ? AND commit_sha = ? AND branch = ? AND seq < ?`,
    )
    .pluck();
  const hasHistory = db
    .prepare(
      `SELECT 1 FROM metric_values WHERE project_id = ? AND key = ? AND branch = ?
          AND (created_at, seq) < (?, ?) LIMIT 1`,
    )
    .pluck();
  const recordById = db.prepare(
    `SELECT ${RECORD_COLUMNS} FROM judged_records WHERE id = ? AND project_id = ?`,
  );
  const latestOfCommit = db.prepare(
    `SELECT ${RECORD_COLUMNS} FROM judged_records WHERE project_id = ? AND commit_sha = ?
      ORDER BY seq DESC LIMIT 1`,
  );
  const recordAt = db.prepare(`SELECT ${RECORD_COLUMNS} FROM judged_records WHERE seq = ?`);
  const latestOnBranch = db.prepare(
    `SELECT ${RECORD_COLUMNS} FROM judged_records WHERE project_id = ? AND branch = ? AND seq <= ?
      ORDER BY seq DESC LIMIT 1`,
  );
  const judgedRecords = db.prepare(
    `SELECT ${RECORD_COLUMNS} FROM judged_records WHERE project_id = ? AND seq >= ?
      ORDER BY seq LIMIT ?`,
  );
  const valuesOf = db.prepare(
    `SELECT ${VALUE_COLUMNS} FROM metric_values WHERE seq = ? ORDER BY key`,
  );
  const seriesAfter = db.prepare(
    `SELECT v.seq, v.value, r.id AS recordId, r.commit_sha AS "commit", v.created_at AS at
       FROM metric_values v JOIN judged_records r ON r.seq = v.seq
      WHERE v.project_id = ? AND v.key = ? AND v.branch = ? AND (v.created_at, v.seq) > (?, ?)
      ORDER BY v.created_at, v.seq LIMIT ?`,
  );
  const insertAlert = db.prepare(
    `INSERT INTO alerts (id, project_id, key, branch, record_id, commit_sha, value, baseline,
       limit_value, side, test, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT DO NOTHING`,
  );
  const alertsAll = db.prepare(
    `SELECT ${ALERT_COLUMNS} FROM alerts WHERE project_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
  );
  const alertsBy = db.prepare(
    `SELECT ${ALERT_COLUMNS} FROM alerts WHERE project_id = ? AND seq < ? AND status = ?
      ORDER BY seq DESC LIMIT ?`,
  );
  const alertsOfRecord = db.prepare(
    `SELECT ${ALERT_COLUMNS} FROM alerts WHERE record_id = ? ORDER BY key`,
  );
  const alertById = db.prepare(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE id = ?`);
  const setAlertStatus = db.prepare('UPDATE alerts SET status = ? WHERE id = ?');
  const cpState = db.prepare(
    'SELECT state, stale FROM change_point_states WHERE project_id = ? AND key = ?',
  );
  const saveCpState = db.prepare(
    `INSERT OR REPLACE INTO change_point_states (project_id, key, state, stale)
     VALUES (?, ?, ?, ?)`,
  );
  const markStale = db.prepare(
    'UPDATE change_point_states SET stale = 1 WHERE project_id = ? AND key = ?',
  );
  const firstStale = db.prepare(
    'SELECT project_id AS projectId, key FROM change_point_states WHERE stale = 1 LIMIT 1',
  );
  const dropPointsFrom = db.prepare(
    'DELETE FROM change_points WHERE project_id = ? AND key = ? AND idx >= ?',
  );
  const insertPoint = db.prepare(
    `INSERT OR REPLACE INTO change_points (project_id, key, idx, seq, record_id, commit_sha, at,
       before_mean, after_mean, change, p_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const cpKeys = db
    .prepare('SELECT key FROM change_point_states WHERE project_id = ? ORDER BY key')
    .pluck();
  const pointsIn = db.prepare(
    `SELECT ${CHANGE_POINT_COLUMNS} FROM change_points
      WHERE project_id = ? AND key = ? AND at >= ? AND at < ? ORDER BY idx`,
  );

  // A range is read through the metrics' (project_id, seq) index, between the seqs the time marks
  // give for its ends (a record's time never goes backwards in seq order, sqlite-time-marks.ts),
  // with the exact (time, position) condition on the rows read: indexes of judged records by time
  // would cost every judged metric two more inserts for a read only re-evaluation makes. Imported
  // records (older than their seq) are read apart, by time on their partial index, and merged.
  const inRange = (branch: string) => ({
    stored: db.prepare(
      `SELECT r.seq, r.id, r.project_id AS projectId, r.branch, r.commit_sha AS "commit",
              r.created_at AS createdAt
         FROM metrics m JOIN judged_records r ON r.seq = m.seq
        WHERE m.project_id = ? AND m.seq >= ? AND m.seq < ? AND m.imported = 0 ${branch}
          AND (r.created_at, r.seq) >= (?, ?) AND (r.created_at, r.seq) <= (?, ?)
        ORDER BY m.seq LIMIT ?`,
    ),
    imported: db.prepare(
      `SELECT r.seq, r.id, r.project_id AS projectId, r.branch, r.commit_sha AS "commit",
              r.created_at AS createdAt
         FROM metrics m JOIN judged_records r ON r.seq = m.seq
        WHERE m.project_id = ? AND m.imported = 1 ${branch}
          AND (m.created_at, m.seq) >= (?, ?) AND (m.created_at, m.seq) <= (?, ?)
        ORDER BY m.created_at, m.seq LIMIT ?`,
    ),
  });
  const recordsInRange = inRange('');
  const branchRecordsInRange = inRange('AND r.branch = ?');
  const metricAt = db.prepare(
    `SELECT seq, id, project_id AS projectId, payload, created_at AS createdAt, branch
       FROM metrics WHERE seq = ?`,
  );
  const insertReevaluation = db.prepare(
    `INSERT INTO reevaluations (id, project_id, key, branch, next_at, next_seq, last_at, last_seq,
       created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const oldestReevaluation = db.prepare(
    `SELECT ${REEVALUATION_COLUMNS} FROM reevaluations ORDER BY created_at, id LIMIT 1`,
  );
  const reevaluationsQueued = db
    .prepare('SELECT COUNT(*) FROM reevaluations WHERE project_id = ?')
    .pluck();
  const advanceReevaluation = db.prepare(
    'UPDATE reevaluations SET next_at = ?, next_seq = ? WHERE id = ?',
  );
  const finishReevaluations = db.prepare(
    'DELETE FROM reevaluations WHERE (next_at, next_seq) > (last_at, last_seq)',
  );
  const updateAlert = db.prepare(
    `UPDATE alerts SET value = ?, baseline = ?, limit_value = ?, side = ?, test = ?
      WHERE record_id = ? AND key = ?`,
  );
  const deleteAlert = db.prepare('DELETE FROM alerts WHERE record_id = ? AND key = ?');

  const asAlert = (row: AlertRow | undefined) => row && { ...row };

  return {
    seriesSettings: (projectId) =>
      (settingsOf.all(projectId) as StoredSetting[]).map(
        (row): SeriesSetting => ({
          ...row,
          ownerUnit: row.ownerUnit === 1,
          ownerDirection: row.ownerDirection === 1,
        }),
      ),

    declareSeries(projectId, units, directions) {
      for (const [key, unit] of units) declareUnit.run(projectId, key, unit);
      for (const [key, direction] of directions) declareDirection.run(projectId, key, direction);
    },

    setSeries(projectId, key, unit, direction) {
      if (unit !== undefined) ownerUnit.run(projectId, key, unit);
      if (direction !== undefined) ownerDirection.run(projectId, key, direction);
    },

    projectSettings(projectId) {
      const row = projectSettings.get(projectId) as
        | { defaultBranch: string | null; defaultThreshold: number; chatWebhook: string | null }
        | undefined;
      return {
        defaultBranch: row?.defaultBranch ?? null,
        defaultThreshold: row ? row.defaultThreshold === 1 : true,
        chatWebhook: row?.chatWebhook ?? null,
      };
    },

    updateProjectSettings(projectId, change) {
      if (change.defaultBranch !== undefined) setDefaultBranch.run(change.defaultBranch, projectId);
      if (change.defaultThreshold !== undefined) {
        setDefaultThreshold.run(change.defaultThreshold ? 1 : 0, projectId);
      }
      if (change.chatWebhook !== undefined) setChatWebhook.run(change.chatWebhook, projectId);
    },

    thresholds: (projectId) => thresholdsOf.all(projectId) as ThresholdRow[],
    threshold: (id) => thresholdById.get(id) as ThresholdRow | undefined,
    createThreshold: (row) => void insertThreshold.run(...thresholdValues(row)),
    replaceThreshold: (row) => void insertThreshold.run(...thresholdValues(row)),
    deleteThreshold: (id) => void deleteThreshold.run(id),

    pending(limit) {
      const after = progress.get();
      const seqs = pendingSeqs.all(after, limit) as number[];
      const remembered = seqs.map((seq) => fresh.at(seq));
      // Any record this process does not hold (another writer's, an import's): all from the table.
      const metrics = remembered.every((metric): metric is PendingMetric => metric !== undefined)
        ? remembered
        : (pendingAfter.all(after, limit) as PendingMetric[]);
      const last = metrics.at(-1);
      return { metrics, token: last ? [last.seq] : [] };
    },

    pendingCount: (atMost) => pendingCount.get(progress.get(), atMost) as number,

    judged(token) {
      const [last] = token;
      if (last !== undefined) {
        setProgress.run(last);
        fresh.judgedThrough(last);
      }
    },

    storeJudged: (record, values) =>
      store({ record: insertRecord, value: insertValue }, record, values),

    replaceJudged(record, values) {
      deleteValues.run(record.seq);
      store({ record: replaceRecord, value: insertValue }, record, values);
    },

    baseline(q) {
      const newest = baselineNewest.all(
        q.projectId,
        q.key,
        q.branch,
        q.throughAt,
        q.throughSeq,
        q.since ?? Number.MIN_SAFE_INTEGER,
        q.limit,
      ) as number[];
      return newest.reverse();
    },

    seqOfCommit: (projectId, branch, commit, beforeSeq) =>
      (seqOfCommit.get(projectId, commit, branch, beforeSeq) as number | null) ?? undefined,

    recordAt: (seq) => recordAt.get(seq) as JudgedRecord | undefined,

    latestOnBranch: (projectId, branch, throughSeq) =>
      latestOnBranch.get(projectId, branch, throughSeq) as JudgedRecord | undefined,

    hasHistory: (projectId, key, branch, before) =>
      hasHistory.get(projectId, key, branch, before.at, before.seq) !== undefined,

    record: (projectId, recordId) =>
      recordById.get(recordId, projectId) as JudgedRecord | undefined,
    latestOfCommit: (projectId, commit) =>
      latestOfCommit.get(projectId, commit) as JudgedRecord | undefined,
    judgedRecords: (projectId, fromSeq, limit) =>
      judgedRecords.all(projectId, fromSeq, limit) as JudgedRecord[],
    valuesOf: (seq) => valuesOf.all(seq) as ReturnType<Sync<VerdictRepository>['valuesOf']>,
    seriesAfter: (projectId, key, branch, after, limit) =>
      seriesAfter.all(projectId, key, branch, after.at, after.seq, limit) as ReturnType<
        Sync<VerdictRepository>['seriesAfter']
      >,

    recordsInRange(r) {
      const [low, high] = marks.seqRange('metrics', r.start.at, r.through.at + 1);
      const bounds = [r.start.at, r.start.seq, r.through.at, r.through.seq, r.limit] as const;
      const branch = r.branch === null ? [] : [r.branch];
      const statements = r.branch === null ? recordsInRange : branchRecordsInRange;
      const stored = statements.stored.all(r.projectId, low, high, ...branch, ...bounds);
      const imported = statements.imported.all(r.projectId, ...branch, ...bounds);
      return mergeInOrder(
        stored as JudgedRecord[],
        imported as JudgedRecord[],
        r.limit,
        oldestFirst,
      );
    },

    metricAt: (seq) => metricAt.get(seq) as PendingMetric | undefined,

    queueReevaluation(r) {
      insertReevaluation.run(
        r.id,
        r.projectId,
        r.key,
        r.branch,
        r.next.at,
        r.next.seq,
        r.last.at,
        r.last.seq,
        r.createdAt,
      );
    },

    reevaluationsQueued: (projectId) => reevaluationsQueued.get(projectId) as number,

    nextReevaluation() {
      const row = oldestReevaluation.get() as StoredReevaluation | undefined;
      return row && reevaluationOf(row);
    },

    advanceReevaluation(id, next) {
      advanceReevaluation.run(next.at, next.seq, id);
      finishReevaluations.run();
    },

    updateAlert: (recordId, key, j) =>
      updateAlert.run(j.value, j.baseline, j.limit, j.side, j.test, recordId, key).changes > 0,

    deleteAlert: (recordId, key) => void deleteAlert.run(recordId, key),

    createAlert(a) {
      const inserted = insertAlert.run(
        a.id,
        a.projectId,
        a.key,
        a.branch,
        a.recordId,
        a.commit,
        a.value,
        a.baseline,
        a.limit,
        a.side,
        a.test,
        a.createdAt,
      );
      return inserted.changes > 0;
    },

    alerts(projectId, status, limit, before) {
      const rows = (
        status === 'all'
          ? alertsAll.all(projectId, before, limit + 1)
          : alertsBy.all(projectId, before, status, limit + 1)
      ) as AlertRow[];
      const items = rows.slice(0, limit);
      return {
        items,
        nextBefore: rows.length > limit ? (items.at(-1)?.seq ?? null) : null,
      };
    },
    alertsOfRecord: (recordId) => alertsOfRecord.all(recordId) as AlertRow[],
    alert: (id) => asAlert(alertById.get(id) as AlertRow | undefined),
    setAlertStatus: (id, status) => void setAlertStatus.run(status, id),

    changePointState(projectId, key) {
      const row = cpState.get(projectId, key) as { state: string; stale: number } | undefined;
      return row && { state: row.state, stale: row.stale === 1 };
    },

    saveChangePoints(projectId, key, { state, stale, from, points }) {
      saveCpState.run(projectId, key, state, stale ? 1 : 0);
      if (from !== null) dropPointsFrom.run(projectId, key, from);
      for (const p of points) {
        insertPoint.run(
          projectId,
          key,
          p.index,
          p.seq,
          p.recordId,
          p.commit,
          p.at,
          p.beforeMean,
          p.afterMean,
          p.change,
          p.pValue,
        );
      }
    },

    markChangePointsStale: (projectId, key) => void markStale.run(projectId, key),
    staleChangePoints: () => firstStale.get() as { projectId: string; key: string } | undefined,

    changePointKeys: (projectId) => cpKeys.all(projectId) as string[],
    changePoints: (projectId, key, from, to) =>
      pointsIn.all(projectId, key, from, to) as ChangePointRow[],
  };
}

function thresholdValues(row: ThresholdRow) {
  return [
    row.id,
    row.projectId,
    row.key,
    row.branch,
    row.test,
    row.lowerBoundary,
    row.upperBoundary,
    row.minSampleSize,
    row.maxSampleSize,
    row.windowSeconds,
    row.createdAt,
  ] as const;
}
