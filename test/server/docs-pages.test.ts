import { describe, expect, it } from 'vitest';
import { type DocsSet, loadDocsSet } from '../../server/http/pages/docs/docs-set.js';
import { renderMarkdown } from '../../server/http/pages/docs/markdown.js';
import { eachTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 26: a server carries its own manual at /docs, rendered (not shown raw), with the pages'
 * security headers, nothing from another host, and links between pages that work on the server.
 */

let server: TestServer;
eachTestServer((started) => ({ server } = started));

const docs = loadDocsSet();
const get = (url: string) => server.call('GET', url, { headers: { accept: 'text/html' } });
const hrefs = (html: string) => [...html.matchAll(/\shref="([^"]*)"/g)].map((m) => m[1] as string);
const decodeAmp = (text: string) => text.replaceAll('&amp;', '&');

describe('/docs', () => {
  it('renders the index and each page as HTML, with the pages security headers', async () => {
    const index = await get('/docs');
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toMatch(/^text\/html/);
    expect(index.headers['content-security-policy']).toContain("script-src 'none'");
    expect(index.headers['content-security-policy']).toContain("default-src 'none'");
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect(index.body).toContain('<h1 id="the-ci-stats-manual">The ci-stats manual</h1>');
    expect(index.body).toContain('<table>');
    // Rendered, not shown raw.
    expect(index.body).not.toContain('# The ci-stats manual');
    expect(index.body).not.toMatch(/<script/i);
    expect(index.body).not.toMatch(/\ssrc="https?:/);
    const [stylesheet] = hrefs(index.body).filter((href) => href.endsWith('.css'));
    expect(stylesheet).toMatch(/^\/assets\/docs\.[\w-]+\.css$/);
    expect((await get(stylesheet as string)).headers['content-type']).toMatch(/^text\/css/);
    expect((await get('/docs/')).body).toBe(index.body);
  });

  it("every page's links to other pages, images and headings work on the server", async () => {
    expect(docs.pages.size).toBeGreaterThan(10);
    const checked = new Map<string, string>();
    const page = async (url: string) => {
      if (!checked.has(url)) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(200);
        checked.set(url, res.body);
      }
      return checked.get(url) as string;
    };
    for (const url of docs.pages.values()) {
      const html = await page(url);
      expect(html, url).toMatch(/<main><h1 id="/);
      for (const href of hrefs(html).map(decodeAmp)) {
        if (!href.startsWith('/') || href.startsWith('/assets/') || href === '/favicon.svg')
          continue;
        if (href === '/dashboard' || href.startsWith('/docs/api/reference')) continue;
        const [path = '', anchor] = href.split('#', 2);
        const target = path.startsWith('/docs/screenshots/') ? undefined : await page(path);
        if (path.startsWith('/docs/screenshots/')) {
          const image = await get(path);
          expect(image.statusCode, href).toBe(200);
          expect(image.headers['content-type'], href).toBe('image/png');
        }
        if (anchor !== undefined) expect(target, `${url} -> ${href}`).toContain(`id="${anchor}"`);
      }
    }
  });

  it('shows the screenshots the pages embed, and the API reference', async () => {
    const pages = await get('/docs/pages');
    const images = [...pages.body.matchAll(/<img src="([^"]+)"/g)].map((m) => m[1] as string);
    expect(images.length).toBeGreaterThan(3);
    for (const src of images) expect((await get(src)).statusCode, src).toBe(200);
    const api = await get('/docs/api');
    expect(hrefs(api.body)).toContain('/docs/api/reference');
    expect((await get('/docs/api/reference')).statusCode).toBe(200);
  });

  it("a file's own name leads to its page", async () => {
    const moved = await get('/docs/api.md');
    expect(moved.statusCode).toBe(301);
    expect(moved.headers.location).toBe('/docs/api');
    expect((await get('/docs/CHANGELOG.md')).headers.location).toBe('/docs/CHANGELOG');
    expect((await get('/docs/no-such-page')).statusCode).toBe(404);
  });
});

describe('the Markdown renderer', () => {
  const set: DocsSet = { ...docs, urlOf: (path) => (path === 'docs/b.md' ? '/docs/b' : undefined) };

  it("escapes the source's HTML: nothing of it runs", () => {
    const { html } = renderMarkdown(
      'docs/a.md',
      '# T\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[x](javascript:alert(1))',
      set,
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toContain('href="javascript:');
  });

  it('points links at the server, keeps anchors, and shows a source file as its path', () => {
    const { html, title, anchors } = renderMarkdown(
      'docs/a.md',
      '# A `title`\n\n## Same\n\n## Same\n\n[b](b.md#x) [src](../server/main.ts) [site](https://example.org/) [here](#same-1)',
      set,
    );
    expect(title).toBe('A title');
    expect([...anchors]).toEqual(['a-title', 'same', 'same-1']);
    expect(html).toContain('<a href="/docs/b#x">b</a>');
    expect(html).toContain(
      '<a class="repository-file" title="In the repository: server/main.ts">src</a>',
    );
    expect(html).toContain('<a href="https://example.org/" rel="noopener noreferrer">site</a>');
    expect(html).toContain('<a href="#same-1">here</a>');
  });
});
