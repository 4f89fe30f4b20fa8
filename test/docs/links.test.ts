import { existsSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles, type ParsedMarkdown, parseMarkdown } from './markdown-files.js';

/**
 * Issue 26: the README is a short front door and docs/ holds the rest; every relative link and
 * anchor resolves in the repository, and no link leaves it except for a third-party site.
 */

const files = markdownFiles();
const parsed = new Map<string, ParsedMarkdown>(files.map((file) => [file, parseMarkdown(file)]));

/** Hosts that exist only on one machine or in an example: a link there is broken in any clone. */
const NOT_A_SITE = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\]|[^/]*\.example(\.com)?)([:/]|$)/;

describe('the documentation', () => {
  it('README.md stays a front door: at most 300 lines', () => {
    expect(parsed.get('README.md')?.source.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('every relative link and anchor resolves, inside the repository', () => {
    const broken: string[] = [];
    for (const [file, { links }] of parsed) {
      for (const { href, line } of links) {
        const where = `${file}:${line}: ${href}`;
        if (/^[a-z][a-z0-9+.-]*:/i.test(href)) {
          if (NOT_A_SITE.test(href)) broken.push(`${where} (not a site anyone else can reach)`);
          continue;
        }
        if (href.startsWith('/')) {
          broken.push(`${where} (absolute path: make it relative)`);
          continue;
        }
        const [path = '', anchor] = href.split('#', 2);
        const target =
          path === ''
            ? file
            : posix.normalize(posix.join(posix.dirname(file), decodeURIComponent(path)));
        if (target.startsWith('../')) {
          broken.push(`${where} (outside the repository)`);
          continue;
        }
        if (!existsSync(target)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (anchor === undefined) continue;
        const targetAnchors = target.endsWith('.md')
          ? (parsed.get(target) ?? parseMarkdown(target)).anchors
          : undefined;
        if (statSync(target).isDirectory() || !targetAnchors?.has(anchor)) {
          broken.push(`${where} (no heading #${anchor} in ${target})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('each page of docs/ says first what the reader can do with it, and the index lists it', () => {
    const index = parsed.get('docs/README.md');
    expect(index).toBeDefined();
    const listed = new Set(
      index?.links.map(({ href }) => posix.join('docs', href.split('#')[0] ?? '')),
    );
    for (const file of files.filter((f) => f.startsWith('docs/') && f !== 'docs/README.md')) {
      const [title, blank, intro] = parsed.get(file)?.source.split('\n') ?? [];
      expect(title, file).toMatch(/^# \S/);
      expect(blank, file).toBe('');
      expect(intro, file).toMatch(/^[A-Z]/);
      expect(listed.has(file), `${file} is linked from docs/README.md`).toBe(true);
    }
  });
});
