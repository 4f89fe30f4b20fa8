import { expect, it } from 'vitest';
import { SpecError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import { FormClient } from '../helpers/form-client.js';
import { storeEvent } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Issue 28, rough edge 8: the overview's latest event shows its status in colour, and a link
 * block may carry a title (E4), shown on the public page with the link's host beneath.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const api = (method: 'GET' | 'POST', url: string, body?: unknown) =>
  server.call(method, url, { key: me.apiKey, ...(body === undefined ? {} : { body }) });
const withoutIssues = ({ issues: _, ...rest }: Record<string, unknown>) => rest;

it("colours the overview's latest event by its status", async () => {
  await storeEvent(server, me.projectId, Date.now() - 1000, 'build', { status: 'failure' });
  const browser = new FormClient(server);
  await browser.signIn(me.apiKey);
  let body = (await browser.get('/dashboard')).body;
  expect(body).toContain(
    '<span class="pill status-pill status-failure bad"><span class="dot" aria-hidden="true"></span>failure</span>',
  );
  await storeEvent(server, me.projectId, Date.now(), 'build', { status: 'success' });
  body = (await browser.get('/dashboard')).body;
  expect(body).toContain('status-pill status-success on');
  expect(body).not.toContain('status-failure');
});

it('keeps a link block’s title (E4) and shows it with the host beneath', async () => {
  const saved = await api('POST', Paths.updateSiteConfiguration, {
    blocks: [
      { type: 'link', content: 'https://example.com/docs/start', title: 'Getting started' },
      { type: 'link', content: 'https://example.org/', title: null },
      { type: 'text', content: 'hello' },
    ],
  });
  expect(saved.statusCode).toBe(200);
  const blocks = saved.json().site.blocks as Record<string, unknown>[];
  expect(blocks.map(({ id: _, ...rest }) => rest)).toEqual([
    {
      type: 'link',
      content: 'https://example.com/docs/start',
      enabled: true,
      title: 'Getting started',
    },
    { type: 'link', content: 'https://example.org/', enabled: true },
    { type: 'text', content: 'hello', enabled: true },
  ]);
  expect((await api('GET', Paths.getSiteConfiguration)).json().blocks).toEqual(blocks);

  await api('POST', Paths.updateDisplayName, { display_name: 'ada' });
  await api('POST', Paths.toggleSiteVisibility);
  const page = await server.call('GET', '/@ada', { headers: { accept: 'text/html' } });
  expect(page.body).toContain(
    '<span class="link-text"><span class="link-title">Getting started</span><span class="link-host">example.com/docs/start</span></span>',
  );
  expect(page.body).toContain('<span>example.org</span>');
  const json = await server.call('GET', '/@ada', { headers: { accept: 'application/json' } });
  expect(json.json().blocks).toEqual([
    { type: 'link', content: 'https://example.com/docs/start', title: 'Getting started' },
    { type: 'link', content: 'https://example.org/' },
    { type: 'text', content: 'hello' },
  ]);
});

it('refuses a title on a text block, or one too long, with the spec’s error; nothing changes', async () => {
  await api('POST', Paths.updateSiteConfiguration, { bio: 'kept' });
  for (const block of [
    { type: 'text', content: 'x', title: 'no' },
    { type: 'link', content: 'https://example.com/', title: 'x'.repeat(121) },
    { type: 'link', content: 'https://example.com/', title: 7 },
  ]) {
    const res = await api('POST', Paths.updateSiteConfiguration, {
      bio: 'changed',
      blocks: [block],
    });
    expect(res.statusCode).toBe(400);
    expect(withoutIssues(res.json())).toEqual({ error: SpecError.invalidBody });
  }
  const site = (await api('GET', Paths.getSiteConfiguration)).json();
  expect(site.bio).toBe('kept');
  expect(site.blocks).toEqual([]);
});

it('the dashboard’s site editor shows and keeps a link’s title', async () => {
  await api('POST', Paths.updateSiteConfiguration, {
    blocks: [{ type: 'link', content: 'https://example.com/', title: 'Home' }],
  });
  const browser = new FormClient(server);
  await browser.signIn(me.apiKey);
  const editor = (await browser.get('/dashboard/site')).body;
  expect(editor).toMatch(/name="blocks\[0\]\[title\]" value="Home"/);
  const id = /name="blocks\[0\]\[id\]" value="([^"]+)"/.exec(editor)?.[1] as string;
  await browser.post('/dashboard/site', {
    'blocks[0][id]': id,
    'blocks[0][type]': 'link',
    'blocks[0][content]': 'https://example.com/',
    'blocks[0][enabled]': 'on',
    'blocks[0][title]': 'Home page',
  });
  const site = (await api('GET', Paths.getSiteConfiguration)).json();
  expect(site.blocks).toEqual([
    { id, type: 'link', content: 'https://example.com/', enabled: true, title: 'Home page' },
  ]);
});
