import { expect, it } from 'vitest';
import { loadDocsSet } from '../../server/http/pages/docs/docs-set.js';
import { eachTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 28, rough edge 7: /docs showed Markdown's backticks literally. No page of the manual, nor
 * the API reference, may show one outside code: its text is the text between the tags once code
 * (`<code>`, `<pre>`) is taken out.
 */

let server: TestServer;
eachTestServer((started) => ({ server } = started));

const get = (url: string) => server.call('GET', url, { headers: { accept: 'text/html' } });
const shownText = (html: string) =>
  html
    .replace(/<head>[\s\S]*?<\/head>/, '')
    .replace(/<pre[\s\S]*?<\/pre>/g, '')
    .replace(/<code[\s\S]*?<\/code>/g, '')
    .replace(/<[^>]*>/g, '');

it('shows no Markdown backtick outside code, on any page or the API reference', async () => {
  const urls = [...new Set(loadDocsSet().pages.values()), '/docs/api/reference'];
  const literal: string[] = [];
  for (const url of urls) {
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    const text = shownText(res.body);
    const at = text.indexOf('`');
    if (at >= 0) literal.push(`${url}: …${text.slice(Math.max(0, at - 40), at + 40)}…`);
  }
  expect(literal).toEqual([]);
});

it('renders the API reference’s descriptions as Markdown: code, and nothing of HTML let through', async () => {
  const page = (await get('/docs/api/reference')).body;
  expect(page).toContain('<code>X-API-KEY</code>');
  expect(page).not.toMatch(/<script/i);
});
