import { describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { FakeService } from '../helpers/fake-service.js';
import { FormClient } from '../helpers/form-client.js';
import { storeEvent, storeMetric } from '../helpers/seed-records.js';
import {
  eachTestServer,
  startTestServer,
  type TestAccount,
  type TestServer,
} from '../helpers/server.js';

/** The statistics pages over HTTP: the owner's page, share links, badges. */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const HOUR = 3_600_000;
const page = (path: string) => server.app.inject({ method: 'GET', url: path });
const share = async (projectId = me.projectId, key = me.apiKey) =>
  (await server.call('POST', Paths.createShareLink, { key, body: { projectId } })).json() as {
    token: string;
  };

async function seed(projectId = me.projectId) {
  const now = Date.now();
  await storeEvent(server, projectId, now - 3 * HOUR, 'build', {
    status: 'failure',
    ci: { branch: 'main' },
  });
  await storeEvent(server, projectId, now - 2 * HOUR, 'build', {
    status: 'success',
    ci: { branch: 'develop' },
  });
  await storeEvent(server, projectId, now - HOUR, 'deploy', { ci: { branch: 'main' } });
  await storeMetric(server, projectId, now - HOUR, {
    duration_ms: 1234.5,
    tests: { failed: 2 },
    ci: { branch: 'main' },
  });
}

describe('the owner’s statistics page', () => {
  it('shows the project to its owner and a 404 page for another account’s or an unknown one', async () => {
    await seed();
    const other = await server.account();
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const own = await browser.get(`/dashboard/projects/${me.projectId}`);
    expect(own.statusCode).toBe(200);
    expect(own.headers['content-security-policy']).toContain("script-src 'self'");
    expect(own.headers['cache-control']).toBe('no-store');
    expect(own.body).toContain('<code>duration_ms</code>');
    expect(own.body).toContain('<code>tests.failed</code>');
    for (const id of [other.projectId, 'no-such-project']) {
      const res = await browser.get(`/dashboard/projects/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain('duration_ms');
    }
    const bad = await browser.get(`/dashboard/projects/${me.projectId}?range=forever`);
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^text\/html/);
  });

  it('filters the page by branch and pages the timeline', async () => {
    await seed();
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const main = await browser.get(`/dashboard/projects/${me.projectId}?range=24h&branch=main`);
    expect(main.statusCode).toBe(200);
    const timeline = main.body.slice(main.body.indexOf('id="timeline-title"'));
    expect(timeline.match(/class="branch"/g)).toHaveLength(2);
    expect(timeline).not.toContain('develop</code>');
    expect(main.body).toMatch(/<option value="develop">develop<\/option>/);
  });

  it("links the commit and the build of the CLI's events on other CIs, from the ci object", async () => {
    const now = Date.now();
    const sha = 'b4e0d3f2a1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6';
    const ci = (provider: string, repository: string, url: string) => ({
      provider,
      repository,
      commit: sha,
      branch: 'main',
      build_url: url,
    });
    await storeEvent(server, me.projectId, now - 3000, 'build', {
      ci: ci('gitlab', 'acme/backend', 'https://gitlab.example.org/acme/backend/-/pipelines/77'),
    });
    await storeEvent(server, me.projectId, now - 2000, 'build', {
      ci: ci('bitbucket', 'acme/web', 'https://bitbucket.org/acme/web/pipelines/results/12'),
    });
    await storeEvent(server, me.projectId, now - 1000, 'build', {
      ci: ci('jenkins', 'acme/api', 'https://jenkins.example.org/job/api/41/'),
    });
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const res = await browser.get(`/dashboard/projects/${me.projectId}?range=24h`);
    const timeline = res.body.slice(res.body.indexOf('id="timeline-title"'));
    const links = [...timeline.matchAll(/<a href="([^"]+)"[^>]*>([^<]+)<\/a>/g)]
      .map(([, href, label]) => [label, href])
      .filter(([label]) => label === 'run' || label?.startsWith('commit'));
    expect(links).toEqual([
      ['run', 'https://jenkins.example.org/job/api/41/'],
      ['commit b4e0d3f', `https://bitbucket.org/acme/web/commits/${sha}`],
      ['run', 'https://bitbucket.org/acme/web/pipelines/results/12'],
      ['commit b4e0d3f', `https://gitlab.example.org/acme/backend/-/commit/${sha}`],
      ['run', 'https://gitlab.example.org/acme/backend/-/pipelines/77'],
    ]);
  });

  it('creates a share link shown once, and revokes it; another account cannot revoke it', async () => {
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    await browser.get(`/dashboard/projects/${me.projectId}`);
    const posted = await browser.post(`/dashboard/projects/${me.projectId}/share-links`);
    // Post/redirect/get: the page shows the new link once, at the top; a refresh does not.
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toBe(`/dashboard/projects/${me.projectId}`);
    const created = await browser.get(`/dashboard/projects/${me.projectId}`);
    expect(created.statusCode).toBe(200);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.body.indexOf('id="new-share-link"')).toBeLessThan(
      created.body.indexOf('id="range"'),
    );
    const again = await browser.get(`/dashboard/projects/${me.projectId}`);
    expect(again.body).not.toContain('id="new-share-link"');
    const url = /id="new-share-link" readonly value="([^"]+)"/.exec(created.body)?.[1];
    expect(url).toMatch(/\/share\/cis_share_[A-Za-z0-9_-]{43}$/);
    const path = new URL(url as string).pathname;
    expect((await page(path)).statusCode).toBe(200);
    const id = /name="id" value="([^"]+)"/.exec(created.body)?.[1] as string;

    const other = await server.account();
    const stranger = new FormClient(server);
    await stranger.signIn(other.apiKey);
    await stranger.get(`/dashboard/projects/${other.projectId}`);
    const foreign = await stranger.post(
      `/dashboard/projects/${other.projectId}/share-links/revoke`,
      {
        id,
      },
    );
    expect(foreign.statusCode).toBe(404);
    expect((await page(path)).statusCode).toBe(200);
    expect(
      (await stranger.post(`/dashboard/projects/${me.projectId}/share-links`)).statusCode,
    ).toBe(404);

    const revoked = await browser.post(`/dashboard/projects/${me.projectId}/share-links/revoke`, {
      id,
    });
    expect(revoked.statusCode).toBe(303);
    expect((await page(path)).statusCode).toBe(404);
  });
});

describe('/share/<token>', () => {
  it('shows the project read-only without sign-in; unknown and revoked tokens are 404', async () => {
    await seed();
    const { token } = await share();
    const res = await page(`/share/${token}`);
    expect(res.statusCode).toBe(200);
    // Revalidated with its ETag before any reuse, never kept by a shared cache.
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.body).toContain('<code>duration_ms</code>');
    expect(res.body).not.toContain('Share links');
    expect(res.body).not.toContain('method="post"');
    const unknown = await page('/share/cis_share_nope');
    expect(unknown.statusCode).toBe(404);
    await server.call('POST', Paths.revokeShareLink, {
      key: me.apiKey,
      body: { token },
    });
    const revoked = await page(`/share/${token}`);
    expect({ status: revoked.statusCode, body: revoked.body }).toEqual({
      status: 404,
      body: unknown.body,
    });
  });

  it('reaches only its own project', async () => {
    const other = await server.account();
    await seed(other.projectId);
    const { token } = await share();
    const res = await page(`/share/${token}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('duration_ms');
    expect(res.body).toContain('No events in this range.');
  });
});

describe('badges', () => {
  it('status: the latest event that has a status, by branch and type; flat SVG cached 60 s', async () => {
    await seed();
    const { token } = await share();
    const badge = async (query = '') => {
      const res = await page(`/share/${token}/badge/status.svg${query}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
      expect(res.headers['cache-control']).toBe('max-age=60');
      return res.body;
    };
    // The deploy (newest) has no status: the build before it counts.
    expect(await badge()).toMatch(/<svg[^>]*>.*>build<.*>success</s);
    expect(await badge('?branch=main')).toMatch(/>failure</);
    expect(await badge('?eventType=deploy')).toMatch(/>unknown</);
    expect(await badge('?branch=nope')).toMatch(/>unknown</);
  });

  it('metric: the latest value of a key, "no data" for an unknown key; 404 for a bad token', async () => {
    await seed();
    const { token } = await share();
    const value = await page(`/share/${token}/badge/metric/duration_ms.svg`);
    expect(value.statusCode).toBe(200);
    expect(value.headers['cache-control']).toBe('max-age=60');
    expect(value.body).toMatch(/>duration_ms<.*>1\.23 s</s);
    expect((await page(`/share/${token}/badge/metric/tests.failed.svg`)).body).toMatch(/>2</);
    expect((await page(`/share/${token}/badge/metric/nope.svg`)).body).toMatch(/>no data</);
    expect((await page('/share/cis_share_nope/badge/metric/duration_ms.svg')).statusCode).toBe(404);
    expect((await page('/share/cis_share_nope/badge/status.svg')).statusCode).toBe(404);
    await server.call('POST', Paths.revokeShareLink, {
      key: me.apiKey,
      body: { token },
    });
    expect((await page(`/share/${token}/badge/status.svg`)).statusCode).toBe(404);
  });
});

describe('the timeline', () => {
  it('shows each event’s colour and its Discord notification’s state, never the webhook', async () => {
    const discord = new FakeService().fallback({ status: 200, body: { id: '1' } });
    await discord.start();
    const token = 'tok3n_SECRET-value_abcdefghijklmnopqrstuvwxyz0123456789';
    const notifying = await startTestServer({ DISCORD_API_ORIGIN: discord.origin });
    try {
      const owner = await notifying.account();
      const res = await notifying.call('POST', Paths.ingestEvents, {
        key: owner.apiKey,
        body: {
          projectId: owner.projectId,
          eventType: 'deploy',
          description: 'v2.4.0 to production',
          color: 0x00ff00,
          chatWebhook: {
            url: `https://discord.com/api/webhooks/112233445566778899/${token}`,
            title: 'Release v2.4.0',
          },
        },
      });
      expect(res.statusCode).toBe(200);
      await discord.waitFor(1);
      const browser = new FormClient(notifying);
      await browser.signIn(owner.apiKey);
      let html = '';
      for (let tries = 0; !html.includes('Discord: delivered') && tries < 50; tries++) {
        html = (await browser.get(`/dashboard/projects/${owner.projectId}`)).body;
        if (!html.includes('Discord: delivered')) await new Promise((r) => setTimeout(r, 20));
      }
      expect(html).toContain('Discord: delivered');
      expect(html).toContain('<circle fill="#00ff00"');
      expect(html).toContain('v2.4.0 to production');
      expect(html).not.toContain(token);
    } finally {
      await notifying.close();
      await discord.stop();
    }
  });
});
