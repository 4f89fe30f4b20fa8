import type { ReevaluationRow } from './storage.js';

/** A re-evaluation row as both backends select it (columns aliased to these names). */
export interface StoredReevaluation {
  id: string;
  projectId: string;
  key: string | null;
  branch: string | null;
  nextAt: number;
  nextSeq: number;
  lastAt: number;
  lastSeq: number;
  createdAt: number;
}

/** A stored re-evaluation as the repository gives it. */
export const reevaluationOf = (row: StoredReevaluation): ReevaluationRow => ({
  id: row.id,
  projectId: row.projectId,
  key: row.key,
  branch: row.branch,
  next: { at: row.nextAt, seq: row.nextSeq },
  last: { at: row.lastAt, seq: row.lastSeq },
  createdAt: row.createdAt,
});
