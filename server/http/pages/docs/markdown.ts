import { slug } from 'github-slugger';
import MarkdownIt from 'markdown-it';
import anchor from 'markdown-it-anchor';
import { type DocsSet, resolveLink } from './docs-set.js';

/**
 * Markdown to HTML for the server's /docs, with markdown-it: CommonMark and GitHub's tables, and
 * no HTML of the source let through (`html: false` escapes it), so a page is safe to insert as it
 * is rendered. Headings get GitHub's ids (github-slugger's slugs, `-1`, `-2` for repeats), so a
 * link to `page.md#a-heading` lands where it does on GitHub. Links between the repository's files
 * become the server's URLs; a link to a file the server does not serve (source code) is kept as
 * its text, naming the path.
 */

interface RenderEnv {
  /** The page's repository path, which its relative links start from. */
  page: string;
  docs: DocsSet;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
type Token = ReturnType<typeof md.parse>[number];

md.use(anchor, {
  level: [1, 2, 3, 4, 5, 6],
  slugify: (text: string) => slug(text),
  tabIndex: false,
});

/**
 * A code block scrolls sideways on a narrow screen: it takes the focus (tabindex 0), so a
 * keyboard can scroll it too (axe-core's scrollable-region-focusable).
 */
for (const rule of ['fence', 'code_block'] as const) {
  const render = md.renderer.rules[rule];
  if (render === undefined) continue;
  md.renderer.rules[rule] = (...args) => render(...args).replace(/^<pre>/, '<pre tabindex="0">');
}

/** Points a link or an image at the server's URL of its target; false when it is not served. */
function rewrite(token: Token, attribute: 'href' | 'src', env: RenderEnv): boolean {
  const target = token.attrGet(attribute) as string | null;
  if (target === null || target === '' || target.startsWith('#') || target.startsWith('/')) {
    return true;
  }
  if (SCHEME.test(target)) {
    if (attribute === 'href') token.attrSet('rel', 'noopener noreferrer');
    return true;
  }
  const [path = '', hash] = target.split('#', 2);
  const resolved = resolveLink(env.page, path);
  const url = env.docs.urlOf(resolved);
  if (url === undefined) return false;
  token.attrSet(attribute, hash === undefined ? url : `${url}#${hash}`);
  return true;
}

md.core.ruler.push('ci_stats_links', (state) => {
  const env = state.env as unknown as RenderEnv;
  for (const block of state.tokens) {
    for (const token of block.children ?? []) {
      if (token.type === 'image') rewrite(token, 'src', env);
      if (token.type !== 'link_open') continue;
      if (!rewrite(token, 'href', env)) {
        // A file of the repository the server does not serve: say where it is, link nowhere.
        const href = token.attrGet('href') as string;
        token.attrs = [
          ['class', 'repository-file'],
          ['title', `In the repository: ${resolveLink(env.page, href.split('#')[0] ?? '')}`],
        ];
      }
    }
  }
});

export interface RenderedPage {
  html: string;
  /** The text of its first level-1 heading. */
  title: string;
  /** Every heading's id. */
  anchors: Set<string>;
}

const textOf = (inline: Token | undefined) =>
  (inline?.children ?? [])
    .filter((t: Token) => t.type === 'text' || t.type === 'code_inline')
    .map((t: Token) => t.content)
    .join('');

/** One Markdown file of `docs`, rendered. */
export function renderMarkdown(page: string, source: string, docs: DocsSet): RenderedPage {
  // markdown-it's env is an open record; ours carries the page and the set through the rules.
  const env = { page, docs } satisfies RenderEnv as unknown as Record<PropertyKey, unknown>;
  const tokens = md.parse(source, env);
  const headings = tokens.flatMap((token, i) =>
    token.type === 'heading_open' ? [{ token, inline: tokens[i + 1] }] : [],
  );
  return {
    html: md.renderer.render(tokens, md.options, env),
    title: textOf(headings.find(({ token }) => token.tag === 'h1')?.inline) || page,
    anchors: new Set(headings.map(({ token }) => String(token.attrGet('id')))),
  };
}
