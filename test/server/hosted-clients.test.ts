import { describe, expect, it } from 'vitest';
import { SpecError } from '../../contract/error-texts.js';
import { hostedPath, Paths } from '../../contract/paths.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Issue 14: a client written for the hosted service works by changing only its base URL. */

const WEBHOOK = 'https://discord.com/api/webhooks/123456789012345678/abcDEF_ghi-jkl';

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const answer = (res: { statusCode: number; json(): unknown }) => ({
  status: res.statusCode,
  body: res.json(),
});

describe('the hosted service paths are aliases of ours', () => {
  it('maps every area', () => {
    expect(hostedPath(Paths.getProjects)).toBe('/api/slowstats/get-projects');
    expect(hostedPath(Paths.toggleSiteVisibility)).toBe('/api/slownetsite/toggle-site-visibility');
    expect(hostedPath(Paths.updateDisplayName)).toBe('/api/account/update-display-name');
    expect(hostedPath(Paths.forwardingStatus)).toBe(
      '/api/email-forwarding/email-forwarding-status',
    );
  });

  it.each([
    ['GET', Paths.forwardingStatus, undefined],
    ['GET', Paths.getProjects, undefined],
    ['GET', Paths.getSiteConfiguration, undefined],
    ['GET', Paths.getThemes, undefined],
    ['GET', Paths.getDisplayName, undefined],
    ['POST', Paths.ingestEvents, { eventType: 'x' }],
    ['POST', Paths.ingestMetrics, {}],
    ['POST', Paths.updateSiteConfiguration, { mood: 1 }],
    ['POST', Paths.forwardingToggle, { enabled: 'yes' }],
  ] as const)('%s %s answers the same under its hosted path', async (method, path, body) => {
    for (const key of [me.apiKey, undefined, 'wrong']) {
      const ours = await server.call(method, path, { key, body });
      const theirs = await server.call(method, hostedPath(path), { key, body });
      expect(answer(theirs)).toEqual(answer(ours));
    }
  });

  it('writes through an alias are the same writes', async () => {
    const flip = await server.call('POST', hostedPath(Paths.toggleSiteVisibility), {
      key: me.apiKey,
    });
    expect(answer(flip)).toEqual({ status: 200, body: { success: true, newStatus: true } });
    const event = await server.call('POST', hostedPath(Paths.ingestEvents), {
      key: me.apiKey,
      body: { projectId: me.projectId, eventType: 'deploy' },
    });
    expect(event.statusCode).toBe(200);
    const events = await server.call('GET', `${Paths.getEvents}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(events.json().events).toMatchObject([{ id: event.json().id, eventType: 'deploy' }]);
  });

  it('unknown paths under a hosted prefix are JSON 404s', async () => {
    const res = await server.call('GET', '/api/slowstats/nope', { key: me.apiKey });
    expect(answer(res)).toEqual({ status: 404, body: { error: 'Not found.' } });
  });
});

describe('get-site-status', () => {
  it.each([Paths.getSiteStatus, hostedPath(Paths.getSiteStatus)])(
    '%s answers { enabled } with the visibility, authenticated like the site',
    async (path) => {
      expect(answer(await server.call('GET', path, { key: me.apiKey }))).toEqual({
        status: 200,
        body: { enabled: false },
      });
      await server.call('POST', Paths.toggleSiteVisibility, { key: me.apiKey });
      expect(answer(await server.call('GET', path, { key: me.apiKey }))).toEqual({
        status: 200,
        body: { enabled: true },
      });
      expect(answer(await server.call('GET', path))).toEqual({
        status: 401,
        body: { error: SpecError.unauthorizedSite },
      });
    },
  );
});

describe('discordWebhook is another name for chatWebhook', () => {
  it('queues the same notification', async () => {
    const res = await server.call('POST', hostedPath(Paths.ingestEvents), {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        eventType: 'deploy',
        discordWebhook: { url: WEBHOOK, title: 'Deployed' },
      },
    });
    expect(res.statusCode).toBe(200);
    const events = await server.call('GET', `${Paths.getEvents}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(events.json().events[0].notification).toMatchObject({
      status: expect.stringMatching(/^(pending|failed)$/),
    });
  });

  it('is validated like chatWebhook, and both at once is 400', async () => {
    const bad = await server.call('POST', Paths.ingestEvents, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        eventType: 'x',
        discordWebhook: { url: 'https://example.com/', title: 't' },
      },
    });
    expect(bad.json()).toMatchObject({
      error: SpecError.invalidBody,
      issues: [{ path: 'discordWebhook.url' }],
    });
    const both = await server.call('POST', Paths.ingestEvents, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        eventType: 'x',
        chatWebhook: { url: WEBHOOK, title: 't' },
        discordWebhook: { url: WEBHOOK, title: 't' },
      },
    });
    expect(answer(both)).toEqual({
      status: 400,
      body: {
        error: SpecError.invalidBody,
        issues: [
          {
            path: 'discordWebhook',
            message: 'another name for chatWebhook: send only one of the two',
          },
        ],
      },
    });
    const events = await server.call('GET', `${Paths.getEvents}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(events.json().events).toEqual([]);
  });
});
