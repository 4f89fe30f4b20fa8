import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { slug } from 'github-slugger';
import MarkdownIt from 'markdown-it';

/**
 * The repository's Markdown read as GitHub reads it, for the docs tests: links, images, headings'
 * anchors and fenced blocks, found by a parser of the tests' own (not the server's renderer).
 */

/** The Markdown the repository documents itself with (the server serves the same set at /docs). */
export function markdownFiles(): string[] {
  const docs = readdirSync('docs', { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => relative('.', join(entry.parentPath, entry.name)).split(sep).join('/'));
  return [...['README.md', 'CHANGELOG.md', 'BENCHMARKS.md'].filter(existsSync), ...docs.sort()];
}

const md = new MarkdownIt({ html: false });
type Token = ReturnType<typeof md.parse>[number];

export interface Link {
  file: string;
  line: number;
  href: string;
  image: boolean;
}

export interface Block {
  file: string;
  /** The first line of its content, 1-based. */
  line: number;
  info: string;
  content: string;
  /** The HTML comment on the line just before the fence (`<!-- example -->`), if any. */
  marker?: string;
}

export interface ParsedMarkdown {
  source: string;
  links: Link[];
  /** Every heading's GitHub anchor (`-1`, `-2` for repeats). */
  anchors: Set<string>;
  blocks: Block[];
}

const headingText = (inline: Token | undefined): string =>
  (inline?.children ?? [])
    .filter((t: Token) => t.type === 'text' || t.type === 'code_inline')
    .map((t: Token) => t.content)
    .join('');

export function parseMarkdown(file: string): ParsedMarkdown {
  const source = readFileSync(file, 'utf8');
  const lines = source.split('\n');
  const tokens = md.parse(source, {});
  const links: Link[] = [];
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const blocks: Block[] = [];
  tokens.forEach((token, i) => {
    const line = (token.map?.[0] ?? 0) + 1;
    if (token.type === 'heading_open') {
      const base = slug(headingText(tokens[i + 1]));
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    if (token.type === 'fence') {
      const before = lines[line - 2]?.trim() ?? '';
      blocks.push({
        file,
        line: line + 1,
        info: token.info.trim(),
        content: token.content,
        marker: /^<!--.*-->$/.test(before) ? before : undefined,
      });
    }
    for (const child of token.children ?? []) {
      const image = child.type === 'image';
      if (child.type !== 'link_open' && !image) continue;
      const href = String(child.attrGet(image ? 'src' : 'href'));
      // Table cells carry no line of their own: the link's first appearance then says where.
      const at = token.map ? line : source.slice(0, source.indexOf(`(${href}`)).split('\n').length;
      links.push({ file, line: at, href, image });
    }
  });
  return { source, links, anchors, blocks };
}
