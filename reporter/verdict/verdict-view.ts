import {
  type ComparedKey,
  type Comparison,
  countVerdicts,
  type VerdictName,
} from './comparison.js';

/**
 * What a verdict says, whatever it is drawn on (a pull-request comment, a check run, a job
 * summary, a merge-request note, a terminal): the headline, the keys in the order they are shown,
 * the base, and the build's tests and duration. The renderers only lay it out.
 */
export interface VerdictFacts {
  projectId: string;
  comparison: Comparison;
  /** This run's test counts, when JUnit reports were read. */
  tests?: { total: number; failed: number; errors: number; skipped: number };
  /** Where to see the project: its page on the server, or the share link given. */
  link?: string;
}

export type Headline =
  | { kind: 'regression'; count: number }
  | { kind: 'no-baseline' }
  | { kind: 'ok' };

/** Shown first: the keys a reader must look at. */
const ORDER: Record<VerdictName, number> = {
  regression: 0,
  improvement: 1,
  'no-baseline': 2,
  ok: 3,
  'no-direction': 4,
};

export const isNotable = (key: ComparedKey) =>
  key.verdict === 'regression' || key.verdict === 'improvement';

/** Regressions first (the largest change first), then improvements, then the rest by name. */
export function orderedKeys(comparison: Comparison): ComparedKey[] {
  return [...comparison.keys].sort(
    (a, b) =>
      ORDER[a.verdict] - ORDER[b.verdict] ||
      Math.abs(b.change ?? 0) - Math.abs(a.change ?? 0) ||
      a.key.localeCompare(b.key),
  );
}

/** ❌ N regressions, else ⚠️ no baseline yet (nothing could be judged), else ✅. */
export function headline(comparison: Comparison): Headline {
  const counts = countVerdicts(comparison);
  if (counts.regression > 0) return { kind: 'regression', count: counts.regression };
  const judged = counts.ok + counts.improvement;
  if (judged === 0 && counts['no-baseline'] > 0) return { kind: 'no-baseline' };
  return { kind: 'ok' };
}

export function headlineText(line: Headline): string {
  if (line.kind === 'regression')
    return `❌ ${line.count} regression${line.count === 1 ? '' : 's'}`;
  return line.kind === 'no-baseline' ? '⚠️ no baseline yet' : '✅ no regression';
}

/** The base the keys were compared with (the first key that names one). */
export function baseOf(comparison: Comparison): { branch: string | null; commit: string | null } {
  return (
    comparison.keys.find((key) => key.base.branch !== null || key.base.commit !== null)?.base ?? {
      branch: null,
      commit: null,
    }
  );
}

/** A number as people read it: at most 4 significant digits, thousands separated. */
export function formatNumber(value: number | null): string {
  if (value === null) return '–';
  const rounded = Math.abs(value) >= 1e4 ? Math.round(value) : Number(value.toPrecision(4));
  return rounded.toLocaleString('en-US', { maximumFractionDigits: 6 });
}

/** value / baseline − 1 as a signed percentage, e.g. `+12.5 %`. */
export function formatChange(change: number | null): string {
  if (change === null) return '–';
  const percent = change * 100;
  const text = Math.abs(percent) >= 100 ? percent.toFixed(0) : percent.toFixed(1);
  return `${percent > 0 ? '+' : ''}${text} %`;
}

export function verdictLabel(verdict: VerdictName): string {
  switch (verdict) {
    case 'regression':
      return '❌ regression';
    case 'improvement':
      return '✅ improvement';
    case 'no-baseline':
      return '⚠️ no baseline';
    case 'no-direction':
      return 'no direction';
    default:
      return 'ok';
  }
}

/** The test and limits behind a verdict, e.g. `t_test ≤ 123.4 (n = 64)`. */
export function limitText(key: ComparedKey): string {
  if (key.test === null) return '–';
  const lower = key.lower_limit;
  const upper = key.upper_limit;
  const limits =
    lower !== null && upper !== null
      ? `${formatNumber(lower)} … ${formatNumber(upper)}`
      : upper !== null
        ? `≤ ${formatNumber(upper)}`
        : lower !== null
          ? `≥ ${formatNumber(lower)}`
          : '';
  const sample = key.sample_size === null ? '' : ` (n = ${key.sample_size})`;
  return `${key.test}${limits ? ` ${limits}` : ''}${sample}`;
}

/** The build's duration against the base, when the record has one (`duration_ms`). */
export function durationKey(comparison: Comparison): ComparedKey | undefined {
  return comparison.keys.find((key) => key.key === 'duration_ms');
}
