import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OwnError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import { FormClient } from '../helpers/form-client.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Every dashboard form: it does what the API does, and shows a refusal next to the field. */

let server: TestServer;
let me: TestAccount;
let browser: FormClient;

beforeEach(async () => {
  server = await startTestServer();
  me = await server.account();
  browser = new FormClient(server);
  await browser.signIn(me.apiKey);
});
afterEach(() => server.close());

const api = (method: 'GET' | 'POST', url: string, body?: unknown) =>
  server.call(method, url, { key: me.apiKey, body });
const siteOf = async () => (await api('GET', Paths.getSiteConfiguration)).json();

/** The error shown for a field, as the page renders it (tied to the control). */
const errorOf = (html: string, id: string) =>
  new RegExp(`<p class="error" id="${id}-error">([^<]*)</p>`).exec(html)?.[1];

const expectRedirect = (
  res: { statusCode: number; headers: Record<string, unknown> },
  location: string,
) =>
  expect({ status: res.statusCode, location: res.headers.location }).toEqual({
    status: 303,
    location,
  });

describe('site', () => {
  it('saves the profile, theme and blocks through E4, then shows the page again (PRG)', async () => {
    await browser.get('/dashboard/site');
    const saved = await browser.post('/dashboard/site', {
      bio: 'Line one\nLine two',
      avatar_url: 'https://img.example.com/me.png',
      location: 'Lisbon',
      mood: 'curious',
      theme_id: 'midnight',
      'newBlock[type]': 'link',
      'newBlock[content]': 'https://example.com/docs',
      action: 'save',
    });
    expectRedirect(saved, '/dashboard/site?done=site-saved');
    expect(await siteOf()).toMatchObject({
      bio: 'Line one\nLine two',
      avatar_url: 'https://img.example.com/me.png',
      location: 'Lisbon',
      mood: 'curious',
      theme_id: 'midnight',
      blocks: [{ type: 'link', content: 'https://example.com/docs', enabled: true }],
    });
    const page = await browser.get('/dashboard/site?done=site-saved');
    expect(page.body).toContain('Your page is saved.');
    expect(page.body).toContain('value="midnight" checked/>');
  });

  it('adds, hides, moves and removes blocks, keeping their ids', async () => {
    await api('POST', Paths.updateSiteConfiguration, {
      blocks: [
        { type: 'text', content: 'first' },
        { type: 'text', content: 'second' },
        { type: 'link', content: 'https://third.example.com/' },
      ],
    });
    const stored = (await siteOf()).blocks as { id: string; content: string }[];
    const rows = (blocks: { id: string; content: string; type?: string; enabled?: boolean }[]) =>
      Object.fromEntries(
        blocks.flatMap((block, i) => [
          [`blocks[${i}][id]`, block.id],
          [`blocks[${i}][type]`, block.type ?? 'text'],
          [`blocks[${i}][content]`, block.content],
          ...(block.enabled === false ? [] : [[`blocks[${i}][enabled]`, 'on']]),
        ]),
      );
    const [a, b, c] = stored as [(typeof stored)[0], (typeof stored)[0], (typeof stored)[0]];
    const all = [a, b, { ...c, type: 'link' }];
    await browser.get('/dashboard/site');
    expectRedirect(
      await browser.post('/dashboard/site', { ...rows(all), action: 'down-0' }),
      '/dashboard/site?done=site-saved',
    );
    expect((await siteOf()).blocks.map((x: { id: string }) => x.id)).toEqual([b.id, a.id, c.id]);

    await browser.get('/dashboard/site');
    await browser.post('/dashboard/site', {
      ...rows([b, a, { ...c, type: 'link' }]),
      action: 'remove-1',
    });
    expect((await siteOf()).blocks.map((x: { id: string }) => x.id)).toEqual([b.id, c.id]);

    await browser.get('/dashboard/site');
    await browser.post('/dashboard/site', {
      ...rows([
        { ...b, enabled: false },
        { ...c, type: 'link' },
      ]),
      action: 'up-1',
    });
    expect((await siteOf()).blocks).toEqual([
      { id: c.id, type: 'link', content: 'https://third.example.com/', enabled: true },
      { id: b.id, type: 'text', content: 'second', enabled: false },
    ]);
  });

  it('an invalid field is shown next to it with the reason, and nothing is saved', async () => {
    await browser.get('/dashboard/site');
    const res = await browser.post('/dashboard/site', {
      bio: 'x'.repeat(1001),
      avatar_url: 'javascript:alert(1)',
      'blocks[0][type]': 'link',
      'blocks[0][content]': 'not a url',
      'blocks[0][enabled]': 'on',
      'newBlock[type]': 'text',
      'newBlock[content]': 'y'.repeat(2001),
      action: 'save',
    });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res.body, 'bio')).toBe('At most 1000 characters.');
    expect(errorOf(res.body, 'avatar_url')).toBe(
      'Use an absolute http(s) URL, like https://example.com/me.png.',
    );
    expect(errorOf(res.body, 'block-0-content')).toMatch(
      /^A link must be an absolute http\(s\) URL/,
    );
    expect(errorOf(res.body, 'new-block-content')).toBe('At most 2000 characters.');
    expect(res.body).toContain(
      'id="avatar_url" name="avatar_url" type="url" value="javascript:alert(1)" aria-invalid="true"',
    );
    // What was typed is kept for correction.
    expect(res.body).toContain('not a url</textarea>');
    expect(await siteOf()).toMatchObject({ bio: null, avatar_url: null, blocks: [] });
  });

  it('the visibility toggle flips E3 and the public page follows', async () => {
    await api('POST', Paths.updateDisplayName, { display_name: 'alice' });
    expect((await server.call('GET', '/@alice')).statusCode).toBe(404);
    await browser.get('/dashboard/site');
    expectRedirect(
      await browser.post('/dashboard/site/visibility', { back: 'site' }),
      '/dashboard/site?done=site-shown',
    );
    expect((await server.call('GET', '/@alice')).statusCode).toBe(200);
    await browser.get('/dashboard');
    expectRedirect(await browser.post('/dashboard/site/visibility'), '/dashboard?done=site-hidden');
    expect((await server.call('GET', '/@alice')).statusCode).toBe(404);
  });
});

describe('account', () => {
  it('sets the display name through E5; refusals are shown at the field', async () => {
    await browser.get('/dashboard/account');
    expectRedirect(
      await browser.post('/dashboard/account/name', { display_name: ' Ada Lovelace ' }),
      '/dashboard/account?done=name-saved',
    );
    expect((await api('GET', Paths.getDisplayName)).json().display_name).toBe('ada-lovelace');

    const other = await server.account();
    await server.call('POST', Paths.updateDisplayName, {
      key: other.apiKey,
      body: { display_name: 'taken-name' },
    });
    for (const [requested, message] of [
      ['ab', OwnError.displayNameLength],
      ['postmaster', OwnError.displayNameReserved],
      ['Taken Name', 'This display name is taken by another account.'],
    ]) {
      await browser.get('/dashboard/account');
      const res = await browser.post('/dashboard/account/name', {
        display_name: requested as string,
      });
      expect(res.statusCode).toBe(400);
      expect(errorOf(res.body, 'display_name')).toBe((message as string).replace(/"/g, '&quot;'));
    }
    expect((await api('GET', Paths.getDisplayName)).json().display_name).toBe('ada-lovelace');
  });

  it('says plainly that a rename turns forwarding off', async () => {
    await api('POST', Paths.updateDisplayName, { display_name: 'alice' });
    await api('POST', Paths.forwardingToggle, { enabled: true, email: 'a@example.org' });
    const page = await browser.get('/dashboard/account');
    expect(page.body).toContain('Renaming turns email forwarding off');
  });

  it('turns forwarding on and off through E2, with its refusals', async () => {
    await browser.get('/dashboard/account');
    const noName = await browser.post('/dashboard/account/forwarding', {
      enabled: 'true',
      email: 'a@example.org',
    });
    expect(noName.statusCode).toBe(400);
    expect(noName.body).toContain('Choose a display name first');

    await api('POST', Paths.updateDisplayName, { display_name: 'alice' });
    await browser.get('/dashboard/account');
    const bad = await browser.post('/dashboard/account/forwarding', {
      enabled: 'true',
      email: 'nope',
    });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad.body, 'email')).toBe('Enter a valid address to forward to.');
    expect((await api('GET', Paths.forwardingStatus)).json()).toEqual({
      enabled: false,
      email: '',
    });

    await browser.get('/dashboard/account');
    expectRedirect(
      await browser.post('/dashboard/account/forwarding', {
        enabled: 'true',
        email: ' alice@example.org ',
      }),
      '/dashboard/account?done=forwarding-on',
    );
    expect((await api('GET', Paths.forwardingStatus)).json()).toEqual({
      enabled: true,
      email: 'alice@example.org',
    });
    await browser.get('/dashboard/account');
    expectRedirect(
      await browser.post('/dashboard/account/forwarding', { enabled: 'false' }),
      '/dashboard/account?done=forwarding-off',
    );
    expect((await api('GET', Paths.forwardingStatus)).json().enabled).toBe(false);
  });
});

describe('API keys', () => {
  it('creates a key shown once (no-store), which then works; revokes it', async () => {
    await browser.get('/dashboard/keys');
    const created = await browser.post('/dashboard/keys', {
      label: 'GitHub Actions',
      scope: 'ingest',
      'projectIds[]': me.projectId,
    });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const key = /id="new-api-key" readonly value="(cis_[A-Za-z0-9_-]{43})"/.exec(
      created.body,
    )?.[1] as string;
    expect(key).toBeDefined();
    const ok = await server.call('POST', Paths.ingestEvents, {
      key,
      body: { projectId: me.projectId, eventType: 'build' },
    });
    expect(ok.statusCode).toBe(200);
    // Never again: the list shows its prefix only.
    const list = await browser.get('/dashboard/keys');
    expect(list.body).not.toContain(key);
    expect(list.body).toContain(`${key.slice(0, 10)}…`);
    expect(list.body).toContain('Ingest into test project');

    const keyId = (await api('GET', Paths.getApiKeys))
      .json()
      .keys.find((k: { label: string }) => k.label === 'GitHub Actions').id;
    expectRedirect(
      await browser.post('/dashboard/keys/revoke', { keyId }),
      '/dashboard/keys?done=key-revoked',
    );
    const refused = await server.call('POST', Paths.ingestEvents, {
      key,
      body: { projectId: me.projectId, eventType: 'build' },
    });
    expect(refused.statusCode).toBe(401);
  });

  it('a label too long is shown at its field', async () => {
    await browser.get('/dashboard/keys');
    const res = await browser.post('/dashboard/keys', { label: 'x'.repeat(101), scope: 'full' });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res.body, 'label')).toBe('At most 100 characters.');
    expect((await api('GET', Paths.getApiKeys)).json().keys).toHaveLength(1);
  });
});

describe('projects', () => {
  it('creates a project (E6 lists it); a taken name is shown at the field', async () => {
    await browser.get('/dashboard/projects');
    expectRedirect(
      await browser.post('/dashboard/projects', { name: ' Web ' }),
      '/dashboard/projects?done=project-created',
    );
    const names = (await api('GET', Paths.getProjects))
      .json()
      .projects.map((p: { name: string }) => p.name);
    expect(names).toEqual(['test project', 'Web']);
    const page = await browser.get('/dashboard/projects');
    expect(page.body).toMatch(/<a href="\/dashboard\/projects\/[^"]+">Web<\/a>/);

    const again = await browser.post('/dashboard/projects', { name: 'WEB' });
    expect(again.statusCode).toBe(400);
    expect(errorOf(again.body, 'name')).toBe(OwnError.projectNameTaken);
    const empty = await browser.post('/dashboard/projects', { name: '   ' });
    expect(errorOf(empty.body, 'name')).toBe('Required.');
  });
});

describe('overview', () => {
  // The projects table is the summaries' (issue 28): the latest event with a status, coloured.
  it('shows the alias, visibility, forwarding and each project’s latest build', async () => {
    await api('POST', Paths.updateDisplayName, { display_name: 'alice' });
    await api('POST', Paths.ingestEvents, {
      projectId: me.projectId,
      eventType: 'deploy',
      description: 'v1.2.3 to production',
      payload: { status: 'failure' },
    });
    const page = await browser.get('/dashboard');
    expect(page.body).toContain('alice@mail.example.test');
    expect(page.body).toContain('Hidden');
    expect(page.body).toMatch(
      /<span class="pill status-pill status-failure bad">.*failure<\/span> <code>deploy<\/code>/,
    );
  });

  it('escapes what the account wrote', async () => {
    await api('POST', Paths.ingestEvents, {
      projectId: me.projectId,
      eventType: '<script>x</script>',
      payload: { status: 'success' },
    });
    const page = await browser.get('/dashboard');
    expect(page.body).not.toContain('<script>x');
    expect(page.body).toContain('&lt;script>x&lt;/script>');
  });
});
