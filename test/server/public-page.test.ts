import { describe, expect, it } from 'vitest';
import { OwnError } from '../../contract/error-texts.js';
import { DEFAULT_THEME } from '../../server/domain/themes.js';
import { renderDocument } from '../../server/http/pages/html-document.js';
import { PublicPageView } from '../../server/http/pages/public-page/public-page-view.js';
import { executeSql } from '../helpers/database.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** GET /@<display_name>: what is shown, to whom, and how it is cached. */

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started), {
  PUBLIC_URL: 'https://stats.example.com',
});

const api = (url: string, body?: unknown, who = me) =>
  server.call('POST', url, { key: who.apiKey, ...(body === undefined ? {} : { body }) });
const setName = (display_name: string, who = me) =>
  api('/account/update-display-name', { display_name }, who);
const configure = (body: unknown, who = me) =>
  api('/pagesite/update-site-configuration', body, who);
const toggle = (who = me) => api('/pagesite/toggle-site-visibility', undefined, who);
const page = (name: string, headers: Record<string, string> = {}) =>
  server.call('GET', `/@${name}`, { headers: { accept: 'text/html', ...headers } });
const json = (name: string) => page(name, { accept: 'application/json' });

async function publish(name = 'alice', site: Record<string, unknown> = {}, who = me) {
  await setName(name, who);
  if (Object.keys(site).length > 0) await configure(site, who);
  await toggle(who);
}

describe('who sees a page', () => {
  it('a visible site is a page; hidden, unknown and nameless are the same 404', async () => {
    await publish('alice', { bio: 'hello' });
    const shown = await page('alice');
    expect(shown.statusCode).toBe(200);
    expect(shown.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(shown.body).toContain('<h1>alice</h1>');

    await toggle();
    const hidden = await page('alice');
    const unknown = await page('nobody-here');
    // An account whose site is visible but that has no display name has no page at all.
    const nameless = await server.account();
    await toggle(nameless);
    const malformed = await page('no%20such%20name');
    for (const res of [hidden, unknown, malformed]) {
      expect(res.statusCode).toBe(404);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toBe(hidden.body);
    }
    expect(hidden.body).toContain('Page not found');
    expect(hidden.body).not.toContain('alice');
  });

  it('matching ignores case; the canonical URL uses the stored name', async () => {
    await publish('alice');
    const res = await page('ALIce');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<link rel="canonical" href="https://stats.example.com/@alice"/>');
  });

  it('after a rename the old name is gone and the new one shows the page', async () => {
    await publish('alice', { bio: 'same site' });
    await setName('alice-two');
    expect((await page('alice')).statusCode).toBe(404);
    const renamed = await page('alice-two');
    expect(renamed.statusCode).toBe(200);
    expect(renamed.body).toContain('same site');
  });

  it('the contact link follows forwarding, and shows the alias, never the private address', async () => {
    await publish('alice');
    expect((await page('alice')).body).not.toContain('mailto:');
    await api('/email-forwarding/email-forwarding-toggle', {
      enabled: true,
      email: 'alice.private@example.org',
    });
    const on = await page('alice');
    expect(on.body).toContain('href="mailto:alice@mail.example.test"');
    expect(on.body).not.toContain('alice.private');
    expect((await json('alice')).json().contact).toBe('alice@mail.example.test');
    await api('/email-forwarding/email-forwarding-toggle', { enabled: false });
    expect((await page('alice')).body).not.toContain('mailto:');
  });
});

describe('what a page shows', () => {
  it('every E4 field, and the enabled blocks in their stored order', async () => {
    await publish('alice', {
      bio: 'Builds things.\nLikes graphs.',
      avatar_url: 'https://img.example.com/alice.png',
      location: 'Lisbon',
      mood: 'focused',
      blocks: [
        { type: 'text', content: 'First paragraph.\n\nSecond paragraph,\nwith a line break.' },
        { type: 'link', content: 'https://example.com/docs/guide?ref=page#top' },
        { type: 'text', content: 'switched off', enabled: false },
        { type: 'link', content: 'https://blog.example.org/' },
      ],
    });
    const { body } = await page('alice');
    expect(body).toContain('<p class="bio">Builds things.\nLikes graphs.</p>');
    expect(body).toMatch(
      /<img class="avatar" src="https:\/\/img\.example\.com\/alice\.png" alt="alice's avatar" width="96" height="96"/,
    );
    expect(body).toContain('Lisbon');
    expect(body).toContain('focused');
    expect(body).not.toContain('switched off');
    const first = body.indexOf('First paragraph.');
    const guide = body.indexOf('example.com/docs/guide');
    const blog = body.indexOf('blog.example.org');
    expect(first).toBeGreaterThan(0);
    expect(guide).toBeGreaterThan(first);
    expect(blog).toBeGreaterThan(guide);
    expect(body).toContain('<p>First paragraph.</p><p>Second paragraph,\nwith a line break.</p>');
    expect(body).toContain(
      '<a href="https://example.com/docs/guide?ref=page#top" rel="noopener noreferrer nofollow ugc"><span>example.com/docs/guide</span>',
    );
    expect(body).toContain('<span>blog.example.org</span>');
  });

  it('each E4 change shows at the next request', async () => {
    await publish('alice');
    for (const [change, shown] of [
      [{ bio: 'new bio' }, 'new bio'],
      [{ location: 'Oslo' }, 'Oslo'],
      [{ mood: 'sleepy' }, 'sleepy'],
      [{ avatar_url: 'https://example.com/new.png' }, 'https://example.com/new.png'],
      [{ blocks: [{ type: 'text', content: 'block text' }] }, 'block text'],
      [{ theme_id: 'midnight' }, '/assets/page-midnight.'],
    ] as const) {
      await configure(change);
      expect((await page('alice')).body).toContain(shown);
    }
    await configure({ bio: null, location: null });
    const cleared = (await page('alice')).body;
    expect(cleared).not.toContain('new bio');
    expect(cleared).not.toContain('Oslo');
  });

  it('an unknown or unset theme gets the default; a known one its own stylesheet', async () => {
    await publish('alice');
    expect((await page('alice')).body).toContain('/assets/page-paper.');
    await configure({ theme_id: 'no-such-theme' });
    expect((await page('alice')).body).toContain('/assets/page-paper.');
    expect((await json('alice')).json().theme_id).toBe('paper');
    await configure({ theme_id: 'terminal' });
    expect((await page('alice')).body).toContain('/assets/page-terminal.');
  });

  it('the head: title, description, canonical, Open Graph, Twitter card, lang, viewport, icon', async () => {
    const longBio = `${'A fairly long biography sentence. '.repeat(10)}end`;
    await publish('alice', { bio: longBio, avatar_url: 'https://example.com/a.png' });
    const { body } = await page('alice');
    expect(body).toMatch(/^<!doctype html><html lang="en"><head><meta charset="utf-8"\/>/);
    expect(body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
    expect(body).toContain('<title>alice</title>');
    const description = /<meta name="description" content="([^"]*)"\/>/.exec(body)?.[1] ?? '';
    expect(description.length).toBeLessThanOrEqual(160);
    expect(description).toMatch(/^A fairly long biography sentence\. .*…$/);
    expect(body).toContain('<meta property="og:type" content="profile"/>');
    expect(body).toContain('<meta property="og:title" content="alice"/>');
    expect(body).toContain(`<meta property="og:description" content="${description}"/>`);
    expect(body).toContain('<meta property="og:url" content="https://stats.example.com/@alice"/>');
    expect(body).toContain('<meta property="og:image" content="https://example.com/a.png"/>');
    expect(body).toContain('<meta name="twitter:card" content="summary"/>');
    expect(body).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml"/>');

    await configure({ avatar_url: null });
    expect((await page('alice')).body).not.toContain('og:image');
  });

  it('the JSON variant: the same rule, only what the page shows', async () => {
    await publish('alice', {
      bio: 'b',
      mood: 'm',
      blocks: [
        { type: 'text', content: 'on' },
        { type: 'text', content: 'off', enabled: false },
      ],
    });
    const res = await json('ALICE');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      display_name: 'alice',
      bio: 'b',
      avatar_url: null,
      location: null,
      mood: 'm',
      theme_id: 'paper',
      blocks: [{ type: 'text', content: 'on' }],
      contact: null,
    });
    await toggle();
    for (const name of ['alice', 'nobody-here']) {
      const missing = await json(name);
      expect({ status: missing.statusCode, body: missing.json() }).toEqual({
        status: 404,
        body: { error: OwnError.notFound },
      });
      expect(missing.headers['cache-control']).toBe('no-store');
    }
  });
});

describe('escaping', () => {
  const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>\'';

  it('user text never becomes markup, in text or in attributes', async () => {
    await publish('alice', {
      bio: HOSTILE,
      location: HOSTILE.slice(0, 100),
      mood: '"><b>x</b>',
      blocks: [{ type: 'text', content: `${HOSTILE}</p></li></ul><script>alert(3)</script>` }],
    });
    const { body } = await page('alice');
    // Markup needs a `<` of its own: every one the user wrote is escaped.
    expect(body).not.toMatch(/<script|<img src=x|<b>x<\/b>/);
    expect(body).toContain('&lt;script>alert(1)&lt;/script>&quot;>&lt;img src=x onerror=alert(2)>');
    // In the description attribute too.
    expect(body).toMatch(
      /<meta name="description" content="&lt;script>alert\(1\)&lt;\/script>&quot;>/,
    );
  });

  it('an avatar URL with quotes stays inside its attribute', async () => {
    const avatar = 'https://img.example.com/a"onerror="alert(1)".png';
    await publish('alice', { avatar_url: avatar });
    const { body } = await page('alice');
    expect(body).toContain(
      '<img class="avatar" src="https://img.example.com/a&quot;onerror=&quot;alert(1)&quot;.png"',
    );
    expect(body).not.toContain('onerror="');
  });

  it('the template escapes a display name too (names are normalised, so only old rows could hold one)', () => {
    const html = renderDocument(
      PublicPageView({
        page: {
          displayName: '<script>x</script>"',
          bio: null,
          avatarUrl: null,
          location: null,
          mood: null,
          theme: DEFAULT_THEME,
          blocks: [],
          contact: null,
        },
        canonicalUrl: 'https://stats.example.com/@x',
        stylesheet: '/s.css',
        favicon: '/f.svg',
      }),
      '',
    );
    expect(html).not.toContain('<script');
    expect(html).toContain('<title>&lt;script>x&lt;/script>&quot;</title>');
    expect(html).toContain('<meta property="og:title" content="&lt;script>x&lt;/script>&quot;"/>');
  });

  it('rows written before today’s validation: only absolute http(s) URLs become links or images', async () => {
    await publish('alice');
    await executeSql(
      server.database,
      'UPDATE sites SET avatar_url = ?, blocks = ? WHERE account_id = ?',
      'javascript:alert(1)',
      JSON.stringify([
        { id: 'a', type: 'link', content: 'javascript:alert(2)', enabled: true },
        {
          id: 'b',
          type: 'link',
          content: 'data:text/html,<script>alert(3)</script>',
          enabled: true,
        },
        { id: 'c', type: 'link', content: '/relative/path', enabled: true },
        { id: 'd', type: 'link', content: 'https://fine.example.com/x', enabled: true },
      ]),
      me.accountId,
    );
    const { body } = await page('alice');
    expect(body).not.toContain('<img');
    expect(body).not.toContain('og:image');
    const hrefs = [...body.matchAll(/<a [^>]*href="([^"]*)"/g)].map((match) => match[1]);
    expect(hrefs).toEqual(['https://fine.example.com/x', '/']);
    expect(body).toContain('<p>javascript:alert(2)</p>');
    expect(body).toContain('<p>data:text/html,&lt;script>alert(3)&lt;/script></p>');
    expect((await json('alice')).json()).toMatchObject({
      avatar_url: null,
      blocks: [
        { type: 'text', content: 'javascript:alert(2)' },
        { type: 'text', content: 'data:text/html,<script>alert(3)</script>' },
        { type: 'text', content: '/relative/path' },
        { type: 'link', content: 'https://fine.example.com/x' },
      ],
    });
  });
});

describe('headers and caching', () => {
  it('a strict CSP with no scripts and no framing, nosniff, no referrer', async () => {
    await publish('alice');
    for (const res of [await page('alice'), await page('nobody-here')]) {
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("script-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });

  it('an ETag that changes with what is shown; If-None-Match gets 304; no-cache', async () => {
    await publish('alice', { bio: 'one' });
    const first = await page('alice');
    const etag = String(first.headers.etag);
    expect(first.headers['cache-control']).toBe('no-cache');
    expect(first.headers.vary).toBe('Accept');
    const again = await page('alice', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);

    const etags = new Set([etag]);
    const changes: (() => Promise<unknown>)[] = [
      () => configure({ bio: 'two' }),
      () => configure({ theme_id: 'dusk' }),
      () =>
        api('/email-forwarding/email-forwarding-toggle', { enabled: true, email: 'a@example.org' }),
      () => setName('alice-b'),
    ];
    for (const change of changes) {
      await change();
      const name = etags.size === 4 ? 'alice-b' : 'alice';
      const res = await page(name, { 'if-none-match': [...etags].join(', ') });
      expect(res.statusCode).toBe(200);
      etags.add(String(res.headers.etag));
    }
    expect(etags.size).toBe(5);
    // The JSON variant has its own ETag.
    expect((await json('alice-b')).headers.etag).not.toBe((await page('alice-b')).headers.etag);
    // Hidden: the old ETag gets a 404, not a 304.
    await toggle();
    expect((await page('alice-b', { 'if-none-match': [...etags].join(', ') })).statusCode).toBe(
      404,
    );
  });

  it('stylesheets are ours, content-hashed and cached for a year', async () => {
    await publish('alice');
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec((await page('alice')).body)?.[1];
    expect(href).toMatch(/^\/assets\/page-paper\.[A-Za-z0-9_-]{12}\.css$/);
    const css = await server.call('GET', String(href));
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(css.body).toContain('--bg:#f6f5f1');
    expect((await server.call('GET', '/assets/page-paper.nothashed.css')).statusCode).toBe(404);
    const icon = await server.call('GET', '/favicon.svg');
    expect(icon.headers['content-type']).toBe('image/svg+xml');
  });
});

describe('GET /pagesite/get-themes', () => {
  it('is public and lists the catalogue', async () => {
    const res = await server.call('GET', '/pagesite/get-themes');
    expect(res.statusCode).toBe(200);
    const { themes } = res.json() as { themes: { id: string; name: string }[] };
    expect(themes.length).toBeGreaterThanOrEqual(6);
    expect(themes[0]).toEqual({ id: 'paper', name: 'Paper' });
    expect(themes.map((t) => t.id)).toContain('midnight');
  });

  it('the rest of /pagesite still needs a key', async () => {
    const res = await server.call('GET', '/pagesite/get-site-configuration');
    expect(res.statusCode).toBe(401);
  });
});
