import {
  type ChangePointState,
  initialChangePointState,
  updateChangePoints,
} from '../../domain/verdicts/index.js';
import type { ChangePointRow, Repositories, TimePosition } from '../../storage/storage.js';

/** Values read from the series at a time when catching up. */
const CHUNK = 2000;
/**
 * Values one background turn feeds a series being rebuilt (about 100 ms of detection, BENCHMARKS.md):
 * a long history is rebuilt over several turns, each its own short transaction.
 */
export const REBUILD_VALUES_PER_TURN = 10_000;

/**
 * What is stored per series: the incremental detection's state, the branch it follows, the last
 * value fed to it (its time and position: the series is read in time order, (created_at, seq)),
 * and the positions (seq) of the values in its window, so that a change point (an index in the
 * series) names its record.
 */
interface StoredState {
  branch: string;
  lastAt: number;
  lastSeq: number;
  detection: ChangePointState;
  /** seqs[i] is the position of the series' value at index detection.offset + i. */
  seqs: number[];
  /** A rebuild cut by its budget: the next turn goes on from here rather than from the start. */
  rebuilding?: true;
}

/** A series of the default branch, and the earliest (time, position) of its new values. */
export interface TouchedSeries {
  projectId: string;
  key: string;
  branch: string;
  earliest: TimePosition;
}

const before = (a: TimePosition, b: TimePosition) =>
  a.at < b.at || (a.at === b.at && a.seq < b.seq);

/**
 * Brings a default-branch series' change points up to date with its values stored since the last
 * update (updateChangePoints: only the window since the last settled change point is analysed, so
 * a new value never costs a scan of the whole history). The series is read in time order; a new
 * value older than the last one fed (an imported, back-dated record, or two writers' clocks) puts
 * the series out of order: it is marked stale, and rebuilt from its first value in the background
 * (`rebuildStaleChangePoints`), a bounded number of values per turn, rather than once per batch of
 * an import. A series without a state, or whose state follows another branch (the default branch
 * changed), starts over from its first value.
 */
export async function updateSeriesChangePoints(
  tx: Repositories,
  series: TouchedSeries,
): Promise<void> {
  const { projectId, key, branch } = series;
  const saved = await tx.verdicts.changePointState(projectId, key);
  if (saved?.stale) return;
  const state = stateOf(saved?.state, branch);
  if (state.lastSeq > 0 && before(series.earliest, { at: state.lastAt, seq: state.lastSeq })) {
    await tx.verdicts.markChangePointsStale(projectId, key);
    return;
  }
  await feed(tx, projectId, key, state, Number.POSITIVE_INFINITY);
}

/**
 * One background turn of rebuilding: the next stale series is started over from its first value
 * (or continued where the previous turn stopped), at most `budget` values. Returns how many values
 * it fed, at least 1 when a series was stale (0: none was).
 */
export async function rebuildStaleChangePoints(
  tx: Repositories,
  budget = REBUILD_VALUES_PER_TURN,
): Promise<number> {
  const stale = await tx.verdicts.staleChangePoints();
  if (!stale) return 0;
  const saved = await tx.verdicts.changePointState(stale.projectId, stale.key);
  const previous = saved && (JSON.parse(saved.state) as Partial<StoredState>);
  // A rebuild in progress goes on from its last value; otherwise it starts from the first.
  const state =
    previous?.rebuilding === true && typeof previous.lastAt === 'number'
      ? (previous as StoredState)
      : fresh(previous?.branch ?? '');
  return Math.max(1, await feed(tx, stale.projectId, stale.key, state, budget));
}

/**
 * Feeds the series' values after the state's last one to the detection, at most `budget` of them,
 * saves the state and replaces the change points it revised. A rebuild cut by its budget stays
 * stale, with its state marked `rebuilding`. Returns how many values it fed.
 */
async function feed(
  tx: Repositories,
  projectId: string,
  key: string,
  start: StoredState,
  budget: number,
): Promise<number> {
  let state = start;
  let fed = 0;
  let finished = false;
  let replaceFrom: number | undefined = start.lastSeq === 0 ? 0 : undefined;
  const found = new Map<number, ChangePointRow>();
  for (;;) {
    const limit = Math.min(CHUNK, budget - fed);
    const after = { at: state.lastAt, seq: state.lastSeq };
    const values = await tx.verdicts.seriesAfter(projectId, key, state.branch, after, limit);
    fed += values.length;
    if (values.length === 0) {
      finished = true;
      break;
    }
    const previous = state.detection;
    const seqs = [...state.seqs, ...values.map((v) => v.seq)];
    const update = updateChangePoints(
      previous,
      values.map((v) => v.value),
    );
    replaceFrom = Math.min(replaceFrom ?? update.from, update.from);
    for (const point of update.change_points) {
      const seq = seqs[point.index - previous.offset];
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
    const last = values.at(-1) as { seq: number; at: number };
    state = {
      ...state,
      lastAt: last.at,
      lastSeq: last.seq,
      detection: update.state,
      seqs: seqs.slice(update.state.offset - previous.offset),
    };
    if (values.length < limit) {
      finished = true;
      break;
    }
    if (fed >= budget) break;
  }
  const points: ChangePointRow[] = [];
  for (const point of [...found.values()].sort((a, b) => a.index - b.index)) {
    const record = await tx.verdicts.recordAt(point.seq);
    if (!record) continue;
    points.push({ ...point, recordId: record.id, commit: record.commit, at: record.createdAt });
  }
  const stored: StoredState = { ...state, rebuilding: finished ? undefined : true };
  await tx.verdicts.saveChangePoints(projectId, key, {
    state: JSON.stringify(stored),
    stale: !finished,
    from: replaceFrom ?? null,
    points,
  });
  return fed;
}

/**
 * The stored state, or a fresh one when there is none, it follows another branch, or it was
 * stored before the series were read in time order (no `lastAt`: it is rebuilt).
 */
function stateOf(saved: string | undefined, branch: string): StoredState {
  if (saved === undefined) return fresh(branch);
  const state = JSON.parse(saved) as Partial<StoredState>;
  if (state.branch !== branch || typeof state.lastAt !== 'number') return fresh(branch);
  return state as StoredState;
}

const fresh = (branch: string): StoredState => ({
  branch,
  lastAt: 0,
  lastSeq: 0,
  detection: initialChangePointState(),
  seqs: [],
});
