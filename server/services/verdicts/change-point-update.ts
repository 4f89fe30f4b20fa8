import {
  type ChangePointState,
  initialChangePointState,
  updateChangePoints,
} from '../../domain/verdicts/index.js';
import type { ChangePointRow, Repositories } from '../../storage/storage.js';

/** Values read from the series at a time when catching up. */
const CHUNK = 2000;

/**
 * What is stored per series: the incremental detection's state, the branch it follows, the last
 * position fed to it, and the positions (seq) of the values in its window, so that a change point
 * (an index in the series) names its record.
 */
interface StoredState {
  branch: string;
  lastSeq: number;
  detection: ChangePointState;
  /** seqs[i] is the position of the series' value at index detection.offset + i. */
  seqs: number[];
}

/**
 * Brings a default-branch series' change points up to date with its values stored since the last
 * update (updateChangePoints: only the window since the last settled change point is analysed, so
 * a new value never costs a scan of the whole history). A series without a state, or whose state
 * follows another branch (the default branch changed), starts over from its first value.
 */
export async function updateSeriesChangePoints(
  tx: Repositories,
  projectId: string,
  key: string,
  branch: string,
): Promise<void> {
  const saved = await tx.verdicts.changePointState(projectId, key);
  let state: StoredState = saved ? JSON.parse(saved) : fresh(branch);
  if (state.branch !== branch) state = fresh(branch);
  let replaceFrom: number | undefined;
  const found = new Map<number, ChangePointRow>();
  for (;;) {
    const values = await tx.verdicts.seriesAfter(projectId, key, branch, state.lastSeq, CHUNK);
    if (values.length === 0) break;
    const before = state.detection;
    const seqs = [...state.seqs, ...values.map((v) => v.seq)];
    const update = updateChangePoints(
      before,
      values.map((v) => v.value),
    );
    replaceFrom = Math.min(replaceFrom ?? update.from, update.from);
    for (const point of update.change_points) {
      const seq = seqs[point.index - before.offset];
      if (seq === undefined) continue;
      found.set(point.index, {
        index: point.index,
        seq,
        recordId: '',
        commit: null,
        at: 0,
        beforeMean: point.before_mean,
        afterMean: point.after_mean,
        change: point.change,
        pValue: point.p_value,
      });
    }
    // Points from `from` on are replaced: drop what an earlier chunk found there.
    for (const index of found.keys()) {
      if (index >= update.from && !update.change_points.some((p) => p.index === index)) {
        found.delete(index);
      }
    }
    state = {
      branch,
      lastSeq: (values.at(-1) as { seq: number }).seq,
      detection: update.state,
      seqs: seqs.slice(update.state.offset - before.offset),
    };
    if (values.length < CHUNK) break;
  }
  if (replaceFrom === undefined) return;
  const points: ChangePointRow[] = [];
  for (const point of [...found.values()].sort((a, b) => a.index - b.index)) {
    const record = await tx.verdicts.recordAt(point.seq);
    if (!record) continue;
    points.push({ ...point, recordId: record.id, commit: record.commit, at: record.createdAt });
  }
  await tx.verdicts.saveChangePoints(projectId, key, JSON.stringify(state), replaceFrom, points);
}

const fresh = (branch: string): StoredState => ({
  branch,
  lastSeq: 0,
  detection: initialChangePointState(),
  seqs: [],
});
