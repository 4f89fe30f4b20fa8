import { isJsonObject } from '../../../contract/json.js';
import { DIRECTIONS, type Direction, UNIT_LENGTH } from '../../../contract/verdicts.js';

/**
 * What judging reads from a metric record's payload besides its series (docs/verdicts.md): its
 * commit, the pull request it belongs to, and the units and directions it declares.
 */

const text = (value: unknown, max = 200): string | null =>
  typeof value === 'string' && value !== '' && value.length <= max ? value : null;

const objectAt = (payload: Record<string, unknown>, name: string): Record<string, unknown> => {
  const value = payload[name];
  return isJsonObject(value) ? value : {};
};

/** The commit: `ci.commit`, else the Action's `github.sha`. */
export function commitOf(payload: Record<string, unknown>): string | null {
  return text(objectAt(payload, 'ci').commit) ?? text(objectAt(payload, 'github').sha);
}

export interface PullRequestFacts {
  /** The branch it merges into. */
  target: string;
  /** The target branch's commit it started from (GitHub's pull_request.base.sha). */
  baseSha: string | null;
}

/**
 * The pull request a record comes from: `ci.pull_request.target_branch` (or the Action's
 * `github.base_ref`, or its `github.pull_request.base_ref`), with `ci.pull_request.base_sha`;
 * undefined when it names no target.
 */
export function pullRequestOf(payload: Record<string, unknown>): PullRequestFacts | undefined {
  const pr = objectAt(objectAt(payload, 'ci'), 'pull_request');
  const github = objectAt(payload, 'github');
  const target =
    text(pr.target_branch) ??
    text(github.base_ref) ??
    text(objectAt(github, 'pull_request').base_ref);
  if (target === null) return undefined;
  return { target, baseSha: text(pr.base_sha) };
}

export interface Declarations {
  units: [string, string | null][];
  directions: [string, Direction][];
}

export type DeclarationsResult = { ok: true; value: Declarations } | { ok: false; field: string };

/**
 * `payload.units` (key -> unit text) and `payload.directions` (key -> "lower", "higher" or null),
 * checked: a value of another kind names its field (`payload.directions.<key>`) for a 400.
 */
export function declarationsOf(payload: Record<string, unknown>): DeclarationsResult {
  const units: Declarations['units'] = [];
  const directions: Declarations['directions'] = [];
  const { units: unitMap, directions: directionMap } = payload;
  if (unitMap !== undefined) {
    if (!isJsonObject(unitMap)) return { ok: false, field: 'payload.units' };
    for (const [key, unit] of Object.entries(unitMap)) {
      const valid =
        key !== '' &&
        key.length <= 200 &&
        (unit === null || (typeof unit === 'string' && unit.length <= UNIT_LENGTH));
      if (!valid) return { ok: false, field: `payload.units.${key}` };
      units.push([key, unit === '' ? null : (unit as string | null)]);
    }
  }
  if (directionMap !== undefined) {
    if (!isJsonObject(directionMap)) return { ok: false, field: 'payload.directions' };
    for (const [key, direction] of Object.entries(directionMap)) {
      const valid =
        key !== '' &&
        key.length <= 200 &&
        (direction === null || DIRECTIONS.includes(direction as 'lower'));
      if (!valid) return { ok: false, field: `payload.directions.${key}` };
      directions.push([key, direction as Direction]);
    }
  }
  return { ok: true, value: { units, directions } };
}
