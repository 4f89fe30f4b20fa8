import type { ComparedKey } from './comparison.js';
import {
  baseOf,
  durationKey,
  formatChange,
  formatNumber,
  headline,
  headlineText,
  isNotable,
  limitText,
  orderedKeys,
  type VerdictFacts,
  verdictLabel,
} from './verdict-view.js';

/** GitHub refuses a comment, or a check run's summary, longer than this (in characters). */
export const GITHUB_BODY_LIMIT = 65_536;

/** The hidden line that finds a project's comment again on the next push. */
export function commentMarker(projectId: string): string {
  return `<!-- ci-stats:verdict project=${encodeURIComponent(projectId)} -->`;
}

/** Markdown's and HTML's special characters in text we did not write (keys, units, branches). */
const escapeText = (text: string) =>
  text.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`).replace(/([\\|`*_[\]])/g, '\\$1');

const shortSha = (sha: string) => sha.slice(0, 12);

function row(key: ComparedKey): string {
  const cells = [
    // A code span shows HTML as text; a pipe must still be escaped in a table's cell.
    `\`${key.key.replace(/`/g, "'").replace(/\|/g, '\\|')}\``,
    escapeText(key.unit ?? ''),
    formatNumber(key.baseline),
    formatNumber(key.value),
    formatChange(key.change),
    verdictLabel(key.verdict),
    escapeText(limitText(key)),
  ];
  return `| ${cells.join(' | ')} |`;
}

const TABLE_HEAD =
  '| Key | Unit | Base | This | Change | Verdict | Test and limit |\n|---|---|---:|---:|---:|---|---|';

/**
 * The verdict as GitHub-flavoured Markdown: the pull-request comment, the check run's summary and
 * the job summary (and GitLab's note, which reads the same Markdown). It stays under `limit`
 * characters whatever the number of keys: rows that do not fit are counted instead of shown
 * (regressions come first, so they are the last to go).
 */
export function verdictMarkdown(facts: VerdictFacts, limit = GITHUB_BODY_LIMIT): string {
  const { comparison, projectId } = facts;
  const head: string[] = [
    commentMarker(projectId),
    `### ci-stats · \`${projectId.replace(/`/g, "'")}\`: ${headlineText(headline(comparison))}`,
    '',
  ];
  const base = baseOf(comparison);
  const record = comparison.record;
  const compared =
    base.branch || base.commit
      ? `Compared with ${base.branch ? `\`${escapeText(base.branch)}\`` : 'the base'}${base.commit ? ` at ${shortSha(base.commit)}` : ''}`
      : 'No base to compare with yet';
  head.push(
    `${compared}; this run: ${record.branch ? `\`${escapeText(record.branch)}\`` : 'record'}${record.commit ? ` at ${shortSha(record.commit)}` : ''}.`,
  );
  const tail: string[] = [];
  const duration = durationKey(comparison);
  if (duration) {
    tail.push(
      `Build duration: ${formatNumber(duration.value)} ms against ${formatNumber(duration.baseline)} ms (${formatChange(duration.change)}).`,
    );
  }
  if (facts.tests) {
    const { total, failed, errors, skipped } = facts.tests;
    tail.push(
      `Tests: ${total} run, ${failed} failed, ${errors} errors, ${skipped} skipped${failed + errors > 0 ? ' ❌' : ''}.`,
    );
  }
  if (facts.link) tail.push(`[All charts of this project](${facts.link})`);

  const keys = orderedKeys(comparison);
  const notable = keys.filter(isNotable);
  const rest = keys.filter((key) => !isNotable(key));
  const fixed = `${head.join('\n')}\n\n${tail.join('\n\n')}`.length;
  // Room for the rows: the limit less the fixed text, the table heads, the <details> wrapper
  // and the line that counts what was left out.
  let room = limit - fixed - 2 * TABLE_HEAD.length - 400;
  const take = (list: ComparedKey[]) => {
    const rows: string[] = [];
    for (const key of list) {
      const text = row(key);
      if (text.length + 1 > room) break;
      room -= text.length + 1;
      rows.push(text);
    }
    return rows;
  };
  const notableRows = take(notable);
  const restRows = take(rest);
  const parts = [head.join('\n')];
  if (keys.length === 0) parts.push('The record has no numeric key to judge.');
  if (notableRows.length > 0) parts.push(`${TABLE_HEAD}\n${notableRows.join('\n')}`);
  if (restRows.length > 0) {
    parts.push(
      `<details><summary>${rest.length} key${rest.length === 1 ? '' : 's'} without a notable change</summary>\n\n${TABLE_HEAD}\n${restRows.join('\n')}\n\n</details>`,
    );
  }
  const left = keys.length - notableRows.length - restRows.length;
  if (left > 0) {
    const regressionsLeft = notable
      .slice(notableRows.length)
      .filter((key) => key.verdict === 'regression').length;
    parts.push(
      `… and ${left} more key${left === 1 ? '' : 's'} not shown (${regressionsLeft} of them regressions): see the project's page.`,
    );
  }
  if (tail.length > 0) parts.push(tail.join('\n\n'));
  return parts.join('\n\n');
}
