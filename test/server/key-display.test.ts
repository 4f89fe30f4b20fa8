import { describe, expect, it } from 'vitest';
import {
  type KeyDisplay,
  KeyDisplayText,
  MAX_HIDDEN_KEYS,
  MAX_PINNED_KEYS,
  ProjectPagePaths,
} from '../../contract/project-page.js';
import { FormClient } from '../helpers/form-client.js';
import { storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Pinned and hidden keys on the project page (issue 28): set through the API and the page's
 * forms, stored per project and key; pinned keys drawn first (after regressions, before the
 * build-duration key), hidden keys listed in one line and not drawn.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const HOUR = 3_600_000;
const KEYS = ['a_key', 'b_key', 'c_key', 'duration_ms', 'z_key'];

/** A day of records, each with every key of KEYS. */
async function seed() {
  const now = Date.now();
  for (let t = now - 20 * HOUR; t < now - HOUR; t += 4 * HOUR) {
    await storeMetric(
      server,
      me.projectId,
      t,
      Object.fromEntries(KEYS.map((key, i) => [key, i + 1])),
    );
  }
}

async function chartsOf(browser: FormClient, path = `/dashboard/projects/${me.projectId}`) {
  const res = await browser.get(`${path}?range=7d`);
  expect(res.statusCode).toBe(200);
  const json = /<script type="application\/json" id="chart-data">([^<]*)<\/script>/.exec(
    res.body,
  )?.[1];
  const data = JSON.parse(json ?? 'null') as { charts: { key: string }[] };
  return { body: res.body, keys: data.charts.map((chart) => chart.key) };
}

async function setDisplay(key: string, display: 'pinned' | 'hidden' | null, apiKey = me.apiKey) {
  return server.call('POST', ProjectPagePaths.updateKeyDisplay, {
    key: apiKey,
    body: { projectId: me.projectId, key, display },
  });
}

async function getDisplay(): Promise<KeyDisplay> {
  const res = await server.call(
    'GET',
    `${ProjectPagePaths.getKeyDisplay}?projectId=${encodeURIComponent(me.projectId)}`,
    { key: me.apiKey },
  );
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as KeyDisplay;
}

describe('pinned and hidden keys', () => {
  it('draws pinned keys first, in pin order, and lists hidden keys in one line without drawing them', async () => {
    await seed();
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    // Without any setting: the build-duration key first, then key order.
    expect((await chartsOf(browser)).keys).toEqual([
      'duration_ms',
      'a_key',
      'b_key',
      'c_key',
      'z_key',
    ]);

    expect((await setDisplay('z_key', 'pinned')).statusCode).toBe(200);
    expect((await setDisplay('b_key', 'pinned')).statusCode).toBe(200);
    const hidden = await setDisplay('a_key', 'hidden');
    expect(hidden.statusCode).toBe(200);
    expect(hidden.json()).toEqual({
      projectId: me.projectId,
      pinned: ['z_key', 'b_key'],
      hidden: ['a_key'],
    });
    expect(await getDisplay()).toEqual(hidden.json());

    const page = await chartsOf(browser);
    expect(page.keys).toEqual(['z_key', 'b_key', 'duration_ms', 'c_key']);
    expect(page.body).toMatch(/data-hidden-keys="true">Hidden, not drawn: <code>a_key<\/code>/);
    // The key table still lists the hidden key, with a Show button.
    expect(page.body).toContain('<span class="pin-tag">hidden</span>');

    // A share page shows the owner's choice too, without the forms.
    const created = await browser.post(`/dashboard/projects/${me.projectId}/share-links`);
    expect(created.statusCode).toBe(303);
    const withLink = await browser.get(`/dashboard/projects/${me.projectId}`);
    const sharePath = /\/share\/[A-Za-z0-9_-]+/.exec(withLink.body)?.[0] as string;
    const shared = await chartsOf(new FormClient(server), sharePath);
    expect(shared.keys).toEqual(['z_key', 'b_key', 'duration_ms', 'c_key']);
    expect(shared.body).toContain('data-hidden-keys');
    expect(shared.body).not.toContain('/key-display');

    // Asked for by its Draw link, a hidden key is drawn.
    const asked = await browser.get(`/dashboard/projects/${me.projectId}?range=7d&chart=a_key`);
    expect(asked.body).toContain('data-key="a_key"');

    // Hiding a pinned key replaces the pin; null shows it as any other.
    expect((await setDisplay('z_key', 'hidden')).json()).toMatchObject({
      pinned: ['b_key'],
      hidden: ['a_key', 'z_key'],
    });
    await setDisplay('a_key', null);
    await setDisplay('z_key', null);
    expect((await chartsOf(browser)).keys).toEqual([
      'b_key',
      'duration_ms',
      'a_key',
      'c_key',
      'z_key',
    ]);
  });

  it('refuses a pin past the limit, bad input and another account, changing nothing', async () => {
    for (let i = 0; i < MAX_PINNED_KEYS; i++) {
      expect((await setDisplay(`k${String(i).padStart(2, '0')}`, 'pinned')).statusCode).toBe(200);
    }
    const before = await getDisplay();
    expect(before.pinned).toHaveLength(MAX_PINNED_KEYS);
    const over = await setDisplay('one_more', 'pinned');
    expect(over.statusCode).toBe(400);
    expect(over.json()).toEqual({ error: KeyDisplayText.tooManyPinned });
    // Pinning a pinned key again is no new pin.
    expect((await setDisplay('k00', 'pinned')).statusCode).toBe(200);
    expect(await getDisplay()).toEqual(before);

    for (const [body, error] of [
      [{ projectId: me.projectId, key: 'x', display: 'starred' }, 'display is invalid.'],
      [{ projectId: me.projectId, key: 'x' }, 'display is invalid.'],
      [{ projectId: me.projectId, key: '', display: null }, 'key is invalid.'],
      [{ projectId: me.projectId, key: 'x', display: null, extra: 1 }, 'Invalid request body.'],
    ] as const) {
      const bad = await server.call('POST', ProjectPagePaths.updateKeyDisplay, {
        key: me.apiKey,
        body,
      });
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.json()).toMatchObject({ error });
    }
    // The hidden keys' limit, likewise: all but the last stored directly (200 requests would
    // meet the API's rate limit), the last through the API.
    for (let i = 1; i < MAX_HIDDEN_KEYS; i++) {
      const key = `h${String(i).padStart(3, '0')}`;
      await server.app.storage.projectPage.setKeyDisplay(me.projectId, key, 'hidden', i, 1000);
    }
    expect((await setDisplay('h000', 'hidden')).statusCode).toBe(200);
    const hiddenOver = await setDisplay('one_more', 'hidden');
    expect(hiddenOver.statusCode).toBe(400);
    expect(hiddenOver.json()).toEqual({ error: KeyDisplayText.tooManyHidden });
    const full = await getDisplay();
    expect(full.hidden).toHaveLength(MAX_HIDDEN_KEYS);
    expect(full.pinned).toEqual(before.pinned);

    const other = await server.account();
    const foreign = await setDisplay('k00', 'hidden', other.apiKey);
    expect(foreign.statusCode).toBe(403);
    const foreignRead = await server.call(
      'GET',
      `${ProjectPagePaths.getKeyDisplay}?projectId=${encodeURIComponent(me.projectId)}`,
      { key: other.apiKey },
    );
    expect(foreignRead.statusCode).toBe(403);
    expect(await getDisplay()).toEqual(full);
  });

  it("pins, hides and shows from the page's forms, with CSRF and only on one's own project", async () => {
    await seed();
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const page = await browser.get(`/dashboard/projects/${me.projectId}?range=7d`);
    expect(page.body).toContain(`action="/dashboard/projects/${me.projectId}/key-display"`);
    const path = `/dashboard/projects/${me.projectId}/key-display`;
    const pinned = await browser.post(path, { key: 'c_key', display: 'pinned' });
    expect(pinned.statusCode).toBe(303);
    expect(pinned.headers.location).toContain('done=key-display-saved');
    expect((await browser.post(path, { key: 'a_key', display: 'hidden' })).statusCode).toBe(303);
    expect(await getDisplay()).toMatchObject({ pinned: ['c_key'], hidden: ['a_key'] });
    expect((await chartsOf(browser)).keys).toEqual(['c_key', 'duration_ms', 'b_key', 'z_key']);

    expect((await browser.post(path, { key: 'a_key', display: '' })).statusCode).toBe(303);
    expect((await browser.post(path, { key: 'a_key', display: 'starred' })).statusCode).toBe(400);
    expect((await browser.post(path, { key: '', display: 'pinned' })).statusCode).toBe(400);
    const csrfLess = await browser.post(path, { key: 'b_key', display: 'hidden' }, { csrf: null });
    expect(csrfLess.statusCode).toBe(403);
    const other = await server.account();
    const foreign = await browser.post(`/dashboard/projects/${other.projectId}/key-display`, {
      key: 'a_key',
      display: 'hidden',
    });
    expect(foreign.statusCode).toBe(404);
    expect(await getDisplay()).toMatchObject({ pinned: ['c_key'], hidden: [] });
  });
});
