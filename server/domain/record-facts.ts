import { benchmarkKey } from '../../contract/benchmarks.js';
import { isJsonObject } from '../../contract/json.js';

/**
 * What the statistics read from a record's payload (issue 12's definitions):
 * - its branch: `payload.ci.branch` when present, else `payload.github.ref` without its
 *   `refs/heads/` prefix (tags and pull-request refs have no branch);
 * - its status: `payload.status`;
 * - its series: the numeric leaves, nested objects' keys joined with `.`, arrays ignored; the
 *   leaves under `ci` and `github` are context (run ids, attempts, pull-request numbers), not
 *   series (issue 23); and each benchmark of `payload.benchmarks` (the reporters' list of
 *   `{ name, value, … }`, docs/benchmarks.md) as the series `bench/<name>`, at the list's place in
 *   the payload. A key met twice (`"a.b"` beside `"a": { "b" }`, a benchmark named twice) keeps its
 *   first value.
 */

/** The payload objects that describe the run, not what it measured. */
const CONTEXT_OBJECTS: ReadonlySet<string> = new Set(['ci', 'github']);

/** Whether a series key is a context leaf (stored before issue 23 counted them as series). */
export const isContextKey = (key: string): boolean => {
  const dot = key.indexOf('.');
  return dot > 0 && CONTEXT_OBJECTS.has(key.slice(0, dot));
};

/** The longest branch name and series key kept; longer ones are not counted. */
export const MAX_NAME_LENGTH = 200;
/**
 * Series read from one record; a payload with more keeps its first ones in the order of its JSON
 * object as sent (depth first, not sorted), so a reporter decides which come first.
 */
export const MAX_SERIES_PER_RECORD = 100;

const text = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' && value.length <= MAX_NAME_LENGTH ? value : null;

export function branchOf(payload: Record<string, unknown> | null | undefined): string | null {
  if (!payload) return null;
  const ci = payload.ci;
  if (isJsonObject(ci) && ci.branch !== undefined && ci.branch !== null) return text(ci.branch);
  const github = payload.github;
  const ref = isJsonObject(github) ? github.ref : undefined;
  return typeof ref === 'string' && ref.startsWith('refs/heads/')
    ? text(ref.slice('refs/heads/'.length))
    : null;
}

export function statusOf(payload: Record<string, unknown> | null | undefined): string | null {
  return payload ? text(payload.status) : null;
}

/** The four columns of the build summary: `other` is any other status, or none. */
export type StatusClass = 'success' | 'failure' | 'cancelled' | 'other';

export function statusClass(status: string | null): StatusClass {
  return status === 'success' || status === 'failure' || status === 'cancelled' ? status : 'other';
}

/** The numeric leaves of a metric payload and its benchmarks: `[key, value]`, finite numbers only. */
export function seriesOf(payload: Record<string, unknown>): [string, number][] {
  const found: [string, number][] = [];
  const seen = new Set<string>();
  const add = (key: string, value: unknown) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || key.length > MAX_NAME_LENGTH)
      return;
    if (seen.has(key)) return;
    seen.add(key);
    found.push([key, value]);
  };
  // On the ingest path: a key is built only for numbers and objects, entries read only in the list
  // of benchmarks.
  const walk = (object: Record<string, unknown>, prefix: string) => {
    for (const name in object) {
      if (found.length >= MAX_SERIES_PER_RECORD) return;
      if (!Object.hasOwn(object, name)) continue;
      const value = object[name];
      if (typeof value === 'number') {
        add(prefix === '' ? name : `${prefix}.${name}`, value);
      } else if (isJsonObject(value)) {
        if (!(prefix === '' && CONTEXT_OBJECTS.has(name))) {
          walk(value, prefix === '' ? name : `${prefix}.${name}`);
        }
      } else if (prefix === '' && name === 'benchmarks' && Array.isArray(value)) {
        for (const entry of value) {
          if (found.length >= MAX_SERIES_PER_RECORD) return;
          if (isJsonObject(entry) && typeof entry.name === 'string' && entry.name !== '') {
            add(benchmarkKey(entry.name), entry.value);
          }
        }
      }
    }
  };
  walk(payload, '');
  return found;
}

/** The workflow of a record: the Action's `github.workflow`, else the CLI's `ci.job`. */
export function workflowOf(payload: Record<string, unknown> | null): string | null {
  for (const [object, field] of [
    ['github', 'workflow'],
    ['ci', 'job'],
  ] as const) {
    const holder = payload?.[object];
    const value = isJsonObject(holder) ? holder[field] : undefined;
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

/**
 * workflowOf of a stored payload's text, parsed only when it may name one (the ingest path
 * folds every record's workflow: most payloads without one are not parsed again). A key written
 * with escapes (a backslash anywhere) is parsed too.
 */
export function workflowOfText(payload: string | null): string | null {
  if (payload === null) return null;
  const may = payload.includes('"workflow"') || payload.includes('"job"');
  if (!may && !payload.includes('\\')) return null;
  return workflowOf(JSON.parse(payload) as Record<string, unknown> | null);
}
