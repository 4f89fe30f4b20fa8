import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { executeSql, selectRows } from '../helpers/database.js';
import { FormClient } from '../helpers/form-client.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Signing in and out of the dashboard, sessions, CSRF, and the limit on failed attempts. */

let server: TestServer;
let me: TestAccount;
let browser: FormClient;

beforeEach(async () => {
  server = await startTestServer();
  me = await server.account();
  browser = new FormClient(server);
});
afterEach(() => server.close());

const PAGES = [
  '/dashboard',
  '/dashboard/site',
  '/dashboard/account',
  '/dashboard/keys',
  '/dashboard/projects',
];

describe('without a session', () => {
  it('every dashboard page and form redirects (303) to the sign-in page', async () => {
    for (const url of PAGES) {
      const res = await browser.get(url);
      expect({ url, status: res.statusCode, location: res.headers.location }).toEqual({
        url,
        status: 303,
        location: '/dashboard/sign-in',
      });
    }
    for (const url of [
      '/dashboard/site',
      '/dashboard/site/visibility',
      '/dashboard/keys',
      '/dashboard/projects',
    ]) {
      const res = await browser.post(url, {});
      expect({ url, status: res.statusCode, location: res.headers.location }).toEqual({
        url,
        status: 303,
        location: '/dashboard/sign-in',
      });
    }
    // A made-up session cookie is no session.
    browser.cookies.set('cistats_session', 'made-up');
    expect((await browser.get('/dashboard')).statusCode).toBe(303);
  });

  it('the sign-in page is a form with a CSRF token, sent with no-store', async () => {
    const res = await browser.get('/dashboard/sign-in');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('<form method="post" action="/dashboard/sign-in">');
    expect(res.body).toContain('name="api_key"');
    expect(browser.csrf).not.toBe('');
  });
});

describe('signing in', () => {
  it('a full key: 303 to /dashboard with an HttpOnly, SameSite=Lax session cookie', async () => {
    const res = await browser.signIn(me.apiKey);
    expect({ status: res.statusCode, location: res.headers.location }).toEqual({
      status: 303,
      location: '/dashboard',
    });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/cistats_session=[A-Za-z0-9_-]{43}/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/Expires=/);
    expect(cookie).not.toMatch(/Secure/);
    const page = await browser.get('/dashboard');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Overview</h1>');
    // Only the token's hash is stored.
    const token = browser.cookies.get('cistats_session') as string;
    expect(
      JSON.stringify(await selectRows(server.database, 'SELECT * FROM sessions')),
    ).not.toContain(token);
  });

  it('the cookie is Secure when the request came over HTTPS through a trusted proxy', async () => {
    await server.close();
    server = await startTestServer({ TRUST_PROXY: 'true' });
    me = await server.account();
    const behindProxy = new FormClient(server, { 'x-forwarded-proto': 'https' });
    const res = await behindProxy.signIn(me.apiKey);
    // Over HTTPS the cookies take the __Host- prefix (Secure, Path=/, no Domain).
    const cookies = String(res.headers['set-cookie']);
    expect(cookies).toMatch(/__Host-cistats_session=[^;]+;.*Secure/);
    expect(cookies).not.toMatch(/Domain=/i);
    expect(behindProxy.cookies.has('cistats_session')).toBe(false);
    expect((await behindProxy.get('/dashboard')).statusCode).toBe(200);
    // A cookie of the plain name (planted by a sibling subdomain, say) is no session there.
    const planted = new FormClient(server, { 'x-forwarded-proto': 'https' });
    planted.cookies.set('cistats_session', behindProxy.cookies.get('__Host-cistats_session') ?? '');
    expect((await planted.get('/dashboard')).statusCode).toBe(303);
    // Without TRUST_PROXY the header would be anyone's to send: not believed.
    await server.close();
    server = await startTestServer();
    me = await server.account();
    const spoofing = new FormClient(server, { 'x-forwarded-proto': 'https' });
    expect(String((await spoofing.signIn(me.apiKey)).headers['set-cookie'])).not.toMatch(/Secure/);
  });

  it('a wrong key: 401 with the form and a message; an ingest key: 403', async () => {
    const wrong = await browser.signIn(`${me.apiKey}x`);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('This key is not valid.');
    expect(wrong.body).toContain('name="api_key"');
    expect(wrong.headers['set-cookie'] ?? '').not.toContain('cistats_session');

    const ingest = (
      await server.call('POST', Paths.createApiKey, { key: me.apiKey, body: { scope: 'ingest' } })
    ).json().apiKey;
    const refused = await browser.signIn(ingest);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('This key can only ingest events and metrics');
    expect((await browser.get('/dashboard')).statusCode).toBe(303);
  });

  it('each sign-in is a new session; signing in again ends the old one', async () => {
    await browser.signIn(me.apiKey);
    const first = browser.cookies.get('cistats_session') as string;
    await browser.signIn(me.apiKey);
    const second = browser.cookies.get('cistats_session') as string;
    expect(second).not.toBe(first);
    const stale = new FormClient(server);
    stale.cookies.set('cistats_session', first);
    expect((await stale.get('/dashboard')).statusCode).toBe(303);
    expect((await browser.get('/dashboard')).statusCode).toBe(200);
  });

  it('after 10 failed attempts from one address, the next gets 429, even with a good key', async () => {
    for (let i = 0; i < 10; i++) expect((await browser.signIn('cis_wrong')).statusCode).toBe(401);
    const limited = await browser.signIn(me.apiKey);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(500);
    expect(limited.body).toContain('Too many failed attempts');
    // Another address is not limited.
    await server.close();
    server = await startTestServer({ TRUST_PROXY: 'true' });
    me = await server.account();
    const attacker = new FormClient(server, { 'x-forwarded-for': '203.0.113.7' });
    for (let i = 0; i < 10; i++) await attacker.signIn('cis_wrong');
    expect((await attacker.signIn(me.apiKey)).statusCode).toBe(429);
    const someoneElse = new FormClient(server, { 'x-forwarded-for': '198.51.100.9' });
    expect((await someoneElse.signIn(me.apiKey)).statusCode).toBe(303);
  });
});

describe('a session', () => {
  it('ends at sign-out', async () => {
    await browser.signIn(me.apiKey);
    const token = browser.cookies.get('cistats_session') as string;
    await browser.get('/dashboard');
    const out = await browser.post('/dashboard/sign-out');
    expect({ status: out.statusCode, location: out.headers.location }).toEqual({
      status: 303,
      location: '/dashboard/sign-in?done=signed-out',
    });
    expect(browser.cookies.has('cistats_session')).toBe(false);
    const replay = new FormClient(server);
    replay.cookies.set('cistats_session', token);
    expect((await replay.get('/dashboard')).statusCode).toBe(303);
  });

  it('ends when the key that opened it is revoked', async () => {
    const second = (
      await server.call('POST', Paths.createApiKey, { key: me.apiKey, body: {} })
    ).json();
    await browser.signIn(second.apiKey);
    expect((await browser.get('/dashboard')).statusCode).toBe(200);
    await server.call('POST', Paths.revokeApiKey, {
      key: me.apiKey,
      body: { keyId: second.keyId },
    });
    expect((await browser.get('/dashboard')).statusCode).toBe(303);
  });

  it('expires after 30 days without use, and is renewed (at most daily) when used', async () => {
    await browser.signIn(me.apiKey);
    const day = 24 * 60 * 60 * 1000;
    const expiry = async () =>
      (await selectRows(server.database, 'SELECT expires_at FROM sessions'))[0]
        ?.expires_at as number;
    const fresh = await expiry();
    expect(fresh - Date.now()).toBeGreaterThan(30 * day - 60_000);
    // Used the same day: not renewed (no write, no new cookie).
    const sameDay = await browser.get('/dashboard');
    expect(sameDay.headers['set-cookie'] ?? '').not.toContain('cistats_session');
    expect(await expiry()).toBe(fresh);
    // Last renewed two days ago: renewed now, in the database and in the cookie.
    await executeSql(server.database, 'UPDATE sessions SET expires_at = expires_at - ?', 2 * day);
    const later = await browser.get('/dashboard');
    expect(later.statusCode).toBe(200);
    expect(String(later.headers['set-cookie'])).toContain('cistats_session=');
    expect(await expiry()).toBeGreaterThan(fresh - 60_000);
    // Expired: gone.
    await executeSql(server.database, 'UPDATE sessions SET expires_at = ?', Date.now() - 1);
    expect((await browser.get('/dashboard')).statusCode).toBe(303);
  });
});

describe('CSRF', () => {
  it('a state-changing form without a valid token is 403 and changes nothing', async () => {
    await browser.signIn(me.apiKey);
    await browser.get('/dashboard/site');
    const attacks: [string, Record<string, string>][] = [
      ['/dashboard/site', { mood: 'pwned' }],
      ['/dashboard/site/visibility', {}],
      ['/dashboard/projects', { name: 'pwned' }],
      ['/dashboard/keys', { label: 'pwned', scope: 'full' }],
      ['/dashboard/sign-out', {}],
    ];
    for (const [url, fields] of attacks) {
      for (const csrf of [null, 'forged-token']) {
        const res = await browser.post(url, fields, { csrf });
        expect({ url, status: res.statusCode }).toEqual({ url, status: 403 });
        expect(res.body).toContain('This form has expired');
      }
    }
    const site = (await server.call('GET', Paths.getSiteConfiguration, { key: me.apiKey })).json();
    expect(site).toMatchObject({ mood: null, visibility: false });
    const projects = (await server.call('GET', Paths.getProjects, { key: me.apiKey })).json()
      .projects;
    expect(projects).toHaveLength(1);
    expect((await browser.get('/dashboard')).statusCode).toBe(200);
  });

  it('the sign-in form needs its token too', async () => {
    const res = await browser.post('/dashboard/sign-in', { api_key: me.apiKey }, { csrf: null });
    expect(res.statusCode).toBe(403);
  });

  it('another browser’s token does not work with this browser’s cookie', async () => {
    const other = new FormClient(server);
    await other.get('/dashboard/sign-in');
    await browser.get('/dashboard/sign-in');
    const res = await browser.post(
      '/dashboard/sign-in',
      { api_key: me.apiKey },
      { csrf: other.csrf },
    );
    expect(res.statusCode).toBe(403);
  });
});

describe('CSRF bound to the session (issue 22)', () => {
  /** The forwarding address as the API reads it. */
  const forwarding = async () =>
    (await server.call('GET', Paths.forwardingStatus, { key: me.apiKey })).json();
  const FORWARD = { enabled: 'true', email: 'attacker@evil.test' };

  beforeEach(async () => {
    await server.call('POST', Paths.updateDisplayName, {
      key: me.apiKey,
      body: { display_name: 'victim' },
    });
  });

  it('the sign-in page’s cookies and token, planted in a signed-in browser, change nothing', async () => {
    // The attacker's anonymous visit: a pre-session cookie and the matching token.
    const attacker = new FormClient(server);
    await attacker.get('/dashboard/sign-in');
    expect(attacker.cookies.get('cistats_presession')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await browser.signIn(me.apiKey);
    // Before issue 22 the secret was the `_csrf` cookie's: plant that too.
    for (const [name, value] of attacker.cookies) browser.cookies.set(name, value);
    browser.cookies.set('_csrf', attacker.cookies.get('cistats_presession') ?? '');
    const res = await browser.post('/dashboard/account/forwarding', FORWARD, {
      csrf: attacker.csrf,
    });
    expect(res.statusCode).toBe(403);
    expect(await forwarding()).toEqual({ enabled: false, email: '' });
  });

  it('a token issued before sign-out is refused in the next session of the same browser', async () => {
    await browser.signIn(me.apiKey);
    await browser.get('/dashboard/account');
    const before = browser.csrf;
    await browser.post('/dashboard/sign-out');
    await browser.signIn(me.apiKey);
    const res = await browser.post('/dashboard/account/forwarding', FORWARD, { csrf: before });
    expect(res.statusCode).toBe(403);
    expect(await forwarding()).toEqual({ enabled: false, email: '' });
    // The new session's own token works.
    await browser.get('/dashboard/account');
    expect((await browser.post('/dashboard/account/forwarding', FORWARD)).statusCode).toBe(303);
    expect(await forwarding()).toEqual({ enabled: true, email: 'attacker@evil.test' });
  });

  it('the sign-in form’s pre-session ends at sign-in; the session’s secret is new each time', async () => {
    await browser.get('/dashboard/sign-in');
    const signInToken = browser.csrf;
    const signedIn = await browser.post('/dashboard/sign-in', { api_key: me.apiKey });
    expect(signedIn.statusCode).toBe(303);
    expect(browser.cookies.has('cistats_presession')).toBe(false);
    // The sign-in form's token is no signed-in form's token.
    expect(
      (await browser.post('/dashboard/account/forwarding', FORWARD, { csrf: signInToken }))
        .statusCode,
    ).toBe(403);
    const secrets = await selectRows(server.database, 'SELECT csrf_secret FROM sessions');
    expect(secrets).toHaveLength(1);
    await browser.signIn(me.apiKey);
    const next = await selectRows(server.database, 'SELECT csrf_secret FROM sessions');
    expect(next).toHaveLength(1);
    expect(next[0]?.csrf_secret).not.toBe(secrets[0]?.csrf_secret);
  });

  it('a form from another origin is refused even with a valid token; same-origin and header-less posts pass', async () => {
    await browser.signIn(me.apiKey);
    await browser.get('/dashboard/account');
    const post = (headers: Record<string, string>) =>
      server.app.inject({
        method: 'POST',
        url: '/dashboard/account/forwarding',
        headers: {
          cookie: `cistats_session=${browser.cookies.get('cistats_session')}`,
          'content-type': 'application/x-www-form-urlencoded',
          host: 'localhost:3000',
          ...headers,
        },
        payload: new URLSearchParams({ ...FORWARD, _csrf: browser.csrf }).toString(),
      });
    for (const headers of [
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: 'http://localhost:3000' },
      { origin: 'http://localhost:8080' },
      { origin: 'http://evil.localhost:3000' },
      { origin: 'null' },
    ] as Record<string, string>[]) {
      const res = await post(headers);
      expect({ headers, status: res.statusCode }).toEqual({ headers, status: 403 });
      expect(res.body).toContain('Sent from another site');
    }
    expect(await forwarding()).toEqual({ enabled: false, email: '' });
    for (const headers of [
      { 'sec-fetch-site': 'same-origin', origin: 'http://localhost:3000' },
      { 'sec-fetch-site': 'none' },
      { origin: 'http://localhost:3000' },
      {},
    ] as Record<string, string>[]) {
      const res = await post(headers);
      expect({ headers, status: res.statusCode }).toEqual({ headers, status: 303 });
    }
    expect(await forwarding()).toEqual({ enabled: true, email: 'attacker@evil.test' });
  });

  it('behind a proxy, an Origin of PUBLIC_URL is this site’s', async () => {
    await server.close();
    server = await startTestServer({ PUBLIC_URL: 'https://stats.example.com' });
    me = await server.account();
    browser = new FormClient(server, { origin: 'https://stats.example.com' });
    expect((await browser.signIn(me.apiKey)).statusCode).toBe(303);
    const other = new FormClient(server, { origin: 'https://other.example.com' });
    await other.get('/dashboard/sign-in');
    expect((await other.post('/dashboard/sign-in', { api_key: me.apiKey })).statusCode).toBe(403);
  });
});

describe('headers', () => {
  it('dashboard pages: a CSP without inline scripts, no framing, no-store', async () => {
    await browser.signIn(me.apiKey);
    // The keys page runs its copy button from a script file of ours; the others run none.
    const scripted = new Set(['/dashboard/keys']);
    for (const url of [...PAGES, '/dashboard/sign-in']) {
      const res = await browser.get(url);
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain(scripted.has(url) ? "script-src 'self'" : "script-src 'none'");
      // Every script is a file (src), none inline.
      expect(res.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("form-action 'self'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('GET / is a landing page linking to the sign-in page', async () => {
    const res = await browser.get('/');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('href="/dashboard/sign-in"');
  });
});
