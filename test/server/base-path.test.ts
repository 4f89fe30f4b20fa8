import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { FormClient } from '../helpers/form-client.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * BASE_PATH (docs/operations.md): behind a proxy under a path, every page, asset, redirect,
 * cookie, badge and API route is under it. A crawl from the pages a signed-in person sees follows
 * every address they hold (links, images, scripts, stylesheets, form actions, redirects) and finds
 * each under the base path and answered there.
 */

const BASE = '/ci-stats';

let server: TestServer;
let me: TestAccount;
let browser: FormClient;

beforeEach(async () => {
  server = await startTestServer({ BASE_PATH: BASE });
  me = await server.account();
  browser = new FormClient(server);
});
afterEach(() => server.close());

const api = (url: string, body?: unknown) =>
  server.call('POST', `${BASE}${url}`, { key: me.apiKey, ...(body === undefined ? {} : { body }) });

/** What a person's data looks like: builds with commits and links, a metric, a public page. */
async function seed(): Promise<void> {
  for (const [status, branch] of [
    ['failure', 'main'],
    ['success', 'main'],
    ['success', 'develop'],
  ]) {
    const res = await api(Paths.ingestEvents, {
      projectId: me.projectId,
      eventType: 'build',
      payload: {
        status,
        ci: {
          provider: 'github',
          repository: 'acme/web',
          commit: 'a'.repeat(40),
          branch,
          build_number: '7',
          build_url: 'https://github.com/acme/web/actions/runs/1',
        },
        duration_ms: 61_000,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  const metric = await api(Paths.ingestMetrics, {
    projectId: me.projectId,
    payload: { bundle_kb: 512, ci: { branch: 'main' } },
  });
  expect(metric.statusCode, metric.body).toBe(200);
  expect((await api('/account/update-display-name', { display_name: 'alice' })).statusCode).toBe(
    200,
  );
  expect((await api('/pagesite/toggle-site-visibility')).statusCode).toBe(200);
}

/**
 * Every address a page holds, as written: href, src and form action attributes (`post` for a
 * form that posts; a form that gets is followed like a link).
 */
const addressesIn = (html: string) =>
  [...html.matchAll(/ (href|src|action)="([^"]*)"/g)].map((match) => {
    const [, attribute, value] = match as unknown as [string, string, string];
    const tag = html.slice(html.lastIndexOf('<', match.index), match.index);
    const post = attribute === 'action' && /method="post"/i.test(tag);
    return { attribute: post ? 'post' : attribute, value: value.replaceAll('&amp;', '&') };
  });

/** Where a page's address leads on this server, or undefined when it leads elsewhere. */
function ownPath(value: string, page: string): string | undefined {
  if (value.startsWith('#') || /^(?:https?:|mailto:)/.test(value)) {
    if (/^https?:/.test(value) && new URL(value).host === 'localhost:80') return value;
    return undefined;
  }
  const url = new URL(value, `http://localhost:80${page}`);
  return `${url.pathname}${url.search}`;
}

const underBase = (path: string) => path === BASE || path.startsWith(`${BASE}/`);

/**
 * Follows every address from `start`: each must be under the base path and answer (a GET with
 * anything but 404, a form action with the form guard's 403 for a wrong token, which only a
 * route that exists gives). Returns the pages crawled.
 */
async function crawl(start: string[], limit = 400): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  const actions = new Set<string>();
  const queue = [...start];
  const problems: string[] = [];
  while (queue.length > 0 && seen.size < limit) {
    const path = queue.shift() as string;
    if (seen.has(path)) continue;
    const res: LightMyRequestResponse = await browser.get(path);
    seen.set(path, res.statusCode);
    if (res.statusCode === 404 || res.statusCode >= 500)
      problems.push(`${path}: ${res.statusCode}`);
    const location = res.headers.location;
    if (typeof location === 'string') {
      if (!underBase(location)) problems.push(`${path}: Location ${location}`);
      else queue.push(location);
    }
    if (!String(res.headers['content-type']).startsWith('text/html')) continue;
    for (const { attribute, value } of addressesIn(res.body)) {
      if (value.startsWith('/') && !value.startsWith('//') && !underBase(value)) {
        problems.push(`${path}: ${attribute}="${value}" is not under ${BASE}`);
      }
      const own = ownPath(value, path);
      if (own === undefined) continue;
      const target = own.startsWith('http') ? new URL(own).pathname : own;
      if (!underBase(target)) {
        problems.push(`${path}: ${attribute}="${value}" leads to ${target}`);
        continue;
      }
      if (attribute === 'post') actions.add(target);
      // Signing out would end the crawl's session; its form action is checked below.
      else if (!target.includes('/sign-out')) queue.push(target);
    }
  }
  for (const action of actions) {
    const res = await browser.post(action, {}, { csrf: 'not-a-token' });
    if (res.statusCode !== 403) problems.push(`form action ${action}: ${res.statusCode}`);
  }
  expect(problems).toEqual([]);
  return seen;
}

describe('BASE_PATH=/ci-stats', () => {
  it('serves every page, asset, form and redirect a signed-in person meets under the base path', async () => {
    await seed();
    const signIn = await browser.get(`${BASE}/dashboard/sign-in`);
    expect(signIn.statusCode).toBe(200);
    const signedIn = await browser.post(`${BASE}/dashboard/sign-in`, { api_key: me.apiKey });
    expect({ status: signedIn.statusCode, location: signedIn.headers.location }).toEqual({
      status: 303,
      location: `${BASE}/dashboard`,
    });
    const cookie = String(signedIn.headers['set-cookie']);
    expect(cookie).toMatch(/^cistats_session=[^;]+; Path=\/ci-stats;/);

    // A share link made from the project's page: shown once, with its badges' previews.
    const project = `${BASE}/dashboard/projects/${me.projectId}`;
    await browser.get(project);
    const created = await browser.post(`${project}/share-links`);
    expect({ status: created.statusCode, location: created.headers.location }).toEqual({
      status: 303,
      location: project,
    });
    const withLink = await browser.get(project);
    const shareUrl = /id="new-share-link"[^>]* value="([^"]+)"/.exec(withLink.body)?.[1] as string;
    expect(shareUrl).toMatch(/^http:\/\/localhost:80\/ci-stats\/share\/cis_share_/);
    expect(withLink.body).toContain(`src="${new URL(shareUrl).pathname}/badge/status.svg"`);
    const badge = await browser.get(`${new URL(shareUrl).pathname}/badge/status.svg`);
    expect({ status: badge.statusCode, type: badge.headers['content-type'] }).toMatchObject({
      status: 200,
      type: expect.stringMatching(/^image\/svg\+xml/),
    });

    const seen = await crawl([
      `${BASE}/`,
      `${BASE}/dashboard`,
      withLink.headers.location ?? project,
      new URL(shareUrl).pathname,
      `${BASE}/@alice`,
      `${BASE}/docs`,
    ]);
    // The crawl went everywhere a person goes: each area, its assets, the manual's pages.
    const crawled = [...seen.keys()];
    for (const area of [
      '/dashboard/site',
      '/dashboard/account',
      '/dashboard/keys',
      '/dashboard/projects',
      `/dashboard/projects/${me.projectId}/tests`,
      `/dashboard/projects/${me.projectId}/series`,
      `/dashboard/projects/${me.projectId}/channels`,
      '/share/',
      '/assets/',
      '/favicon.svg',
      '/docs/api',
      '/docs/api/reference',
      '/docs/operations',
    ]) {
      expect(
        crawled.some((path) => path.startsWith(`${BASE}${area}`)),
        area,
      ).toBe(true);
    }
    expect(crawled.length).toBeGreaterThan(40);

    // Signing out: back to the sign-in page, the session cookie cleared at its own path.
    const signedOut = await browser.post(`${BASE}/dashboard/sign-out`);
    expect(signedOut.headers.location).toMatch(/^\/ci-stats\/dashboard\/sign-in/);
    expect(String(signedOut.headers['set-cookie'])).toMatch(/Path=\/ci-stats;/);
  });

  it('without a session, the dashboard redirects to the sign-in page under the base path', async () => {
    const res = await server.app.inject({ url: `${BASE}/dashboard/keys` });
    expect({ status: res.statusCode, location: res.headers.location }).toEqual({
      status: 303,
      location: `${BASE}/dashboard/sign-in`,
    });
    const docs = await server.app.inject({ url: `${BASE}/docs/api.md` });
    expect({ status: docs.statusCode, location: docs.headers.location }).toEqual({
      status: 301,
      location: `${BASE}/docs/api`,
    });
  });

  it('answers nothing outside the base path, and the API, /healthz and OpenAPI under it', async () => {
    for (const path of ['/', '/dashboard', '/docs', '/healthz', Paths.getProjects]) {
      const res = await server.call('GET', path, { key: me.apiKey });
      expect(res.statusCode, path).toBe(404);
    }
    expect((await server.call('GET', `${BASE}/healthz`)).statusCode).toBe(200);
    const projects = await server.call('GET', `${BASE}${Paths.getProjects}`, { key: me.apiKey });
    expect(projects.statusCode, projects.body).toBe(200);
    // The spec's paths, with the base path as the server's URL.
    const openapi = (await server.call('GET', `${BASE}/openapi.json`)).json() as {
      servers: { url: string }[];
      paths: Record<string, unknown>;
    };
    expect(openapi.servers).toEqual([{ url: BASE }]);
    expect(Object.keys(openapi.paths)).toContain(Paths.ingestEvents);
    expect(Object.keys(openapi.paths).some((path) => path.startsWith(BASE))).toBe(false);
    // The manual's API reference reads the same document.
    const reference = await server.call('GET', `${BASE}/docs/api/reference`);
    expect(reference.body).toContain(Paths.ingestEvents);
  });

  it('behind an HTTPS proxy, cookies are __Secure- (not __Host-, which demands Path=/) at the base path', async () => {
    await server.close();
    server = await startTestServer({ BASE_PATH: BASE, TRUST_PROXY: 'true' });
    me = await server.account();
    browser = new FormClient(server, { 'x-forwarded-proto': 'https' });
    const res = await browser.signIn(me.apiKey);
    expect(res.headers.location).toBe(`${BASE}/dashboard`);
    expect(String(res.headers['set-cookie'])).toMatch(
      /^__Secure-cistats_session=[^;]+; Path=\/ci-stats; .*Secure/,
    );
    expect((await browser.get(`${BASE}/dashboard/keys`)).statusCode).toBe(200);
  });
});

describe('BASE_PATH=/stats, the API area’s own name', () => {
  it('ingests at /stats/stats/ingest-events: the base path, then the spec’s path', async () => {
    await server.close();
    server = await startTestServer({ BASE_PATH: '/stats', PUBLIC_URL: 'https://ci.example.com' });
    me = await server.account();
    const ingest = await server.call('POST', `/stats${Paths.ingestEvents}`, {
      key: me.apiKey,
      body: { projectId: me.projectId, eventType: 'build' },
    });
    expect(ingest.statusCode, ingest.body).toBe(200);
    // The spec's path alone is not the API any more: it is under the base path.
    const bare = await server.call('POST', Paths.ingestEvents, {
      key: me.apiKey,
      body: { projectId: me.projectId, eventType: 'build' },
    });
    expect(bare.statusCode).toBe(404);
    const link = await server.call('POST', `/stats${Paths.createShareLink}`, {
      key: me.apiKey,
      body: { projectId: me.projectId },
    });
    expect((link.json() as { url: string }).url).toMatch(
      /^https:\/\/ci\.example\.com\/stats\/share\/cis_share_/,
    );
    // The OpenAPI document names PUBLIC_URL with the base path as its server and keeps the
    // spec's paths, `/stats/...` included (a base path of the same name is not taken off twice).
    const openapi = (await server.call('GET', '/stats/openapi.json')).json() as {
      servers: { url: string }[];
      paths: Record<string, unknown>;
    };
    expect(openapi.servers).toEqual([{ url: 'https://ci.example.com/stats' }]);
    expect(Object.keys(openapi.paths)).toContain(Paths.ingestEvents);
    expect(Object.keys(openapi.paths)).not.toContain('/ingest-events');
  });
});
