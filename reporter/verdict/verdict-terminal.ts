import type { ComparedKey } from './comparison.js';
import {
  baseOf,
  formatChange,
  formatNumber,
  headline,
  headlineText,
  limitText,
  orderedKeys,
  type VerdictFacts,
  verdictLabel,
} from './verdict-view.js';

/** ANSI colours of a verdict, for a terminal that shows them. */
const COLOURS: Partial<Record<ComparedKey['verdict'], string>> = {
  regression: '\u001b[31m',
  improvement: '\u001b[32m',
  'no-baseline': '\u001b[33m',
};
const RESET = '\u001b[0m';

/**
 * The verdict as a table for a terminal (the CLI's `--compare`): the same headline, keys and
 * order as the pull-request comment, columns aligned; coloured only when `colour` (a TTY).
 * Every key is shown: a terminal has no size limit.
 */
export function verdictTerminal(facts: VerdictFacts, colour: boolean): string {
  const { comparison } = facts;
  const base = baseOf(comparison);
  const lines = [
    `ci-stats verdict for ${facts.projectId}: ${headlineText(headline(comparison))}`,
    base.branch || base.commit
      ? `compared with ${base.branch ?? 'the base'}${base.commit ? ` at ${base.commit.slice(0, 12)}` : ''}`
      : 'no base to compare with yet',
  ];
  const keys = orderedKeys(comparison);
  if (keys.length === 0) return [...lines, 'the record has no numeric key to judge'].join('\n');
  const header = ['key', 'unit', 'base', 'this', 'change', 'verdict', 'test and limit'];
  const rows = keys.map((key) => [
    key.key,
    key.unit ?? '',
    formatNumber(key.baseline),
    formatNumber(key.value),
    formatChange(key.change),
    verdictLabel(key.verdict),
    limitText(key),
  ]);
  const widths = header.map((title, i) =>
    Math.max([...title].length, ...rows.map((row) => [...(row[i] ?? '')].length)),
  );
  const numeric = new Set([2, 3, 4]);
  const layout = (cells: string[]) =>
    cells
      .map((cell, i) => {
        const pad = (widths[i] ?? 0) - [...cell].length;
        return numeric.has(i) ? ' '.repeat(pad) + cell : cell + ' '.repeat(pad);
      })
      .join('  ')
      .trimEnd();
  lines.push('', layout(header));
  rows.forEach((cells, i) => {
    const text = layout(cells);
    const tint = colour ? COLOURS[keys[i]?.verdict ?? 'ok'] : undefined;
    lines.push(tint ? `${tint}${text}${RESET}` : text);
  });
  if (facts.link) lines.push('', `all charts: ${facts.link}`);
  return lines.join('\n');
}
