import { expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import { FormClient } from '../helpers/form-client.js';
import { storeEvent, storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * The share links' badges (issue 28, rough edge 5): the status badge is labelled with what its
 * status is of, metric badges speak their series' unit, and the share panel gives each badge's
 * Markdown with a preview.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const HOUR = 3_600_000;
const page = (path: string) => server.app.inject({ method: 'GET', url: path });
const share = async () =>
  (
    await server.call('POST', Paths.createShareLink, {
      key: me.apiKey,
      body: { projectId: me.projectId },
    })
  ).json() as { token: string; url: string };
/** The label and the message a badge shows. */
const texts = (svg: string) => {
  const title = /<title>([^<]*)<\/title>/.exec(svg)?.[1] ?? '';
  return title.split(': ');
};

it('labels the status badge with the latest event’s type, the asked type, or ?label=', async () => {
  const now = Date.now();
  await storeEvent(server, me.projectId, now - 2 * HOUR, 'build', { status: 'success' });
  await storeEvent(server, me.projectId, now - HOUR, 'release', { status: 'failure' });
  await storeEvent(server, me.projectId, now - HOUR / 2, 'note', null);
  const { token } = await share();
  const badge = async (query = '') => {
    const res = await page(`/share/${token}/badge/status.svg${query}`);
    expect(res.statusCode).toBe(200);
    return texts(res.body);
  };
  expect(await badge()).toEqual(['release', 'failure']);
  expect(await badge('?eventType=build')).toEqual(['build', 'success']);
  expect(await badge('?eventType=deploy')).toEqual(['deploy', 'unknown']);
  expect(await badge('?label=CI')).toEqual(['CI', 'failure']);
  expect(await badge('?label=nightly&eventType=build')).toEqual(['nightly', 'success']);

  const long = await page(`/share/${token}/badge/status.svg?label=${'x'.repeat(65)}`);
  expect(long.statusCode).toBe(400);
  expect(long.json()).toEqual({ error: 'label must be at most 64 characters.' });
});

it('formats a metric badge with its series’ unit, declared or named by its key', async () => {
  const now = Date.now();
  await storeMetric(server, me.projectId, now - HOUR, {
    duration_ms: 1200,
    bundle_bytes: 532_000,
    wait: 90,
    count: 1234.5,
  });
  const set = await server.call('POST', VerdictPaths.updateSeries, {
    key: me.apiKey,
    body: { projectId: me.projectId, key: 'wait', unit: 's' },
  });
  expect(set.statusCode).toBe(200);
  const { token } = await share();
  const badge = async (key: string) =>
    texts((await page(`/share/${token}/badge/metric/${key}.svg`)).body);
  expect(await badge('duration_ms')).toEqual(['duration_ms', '1.2 s']);
  expect(await badge('bundle_bytes')).toEqual(['bundle_bytes', '532 kB']);
  expect(await badge('wait')).toEqual(['wait', '1.5 min']);
  expect(await badge('count')).toEqual(['count', '1,234.5']);
  expect(await badge('nope')).toEqual(['nope', 'no data']);
});

it('gives each badge’s Markdown and a preview with a new share link', async () => {
  await storeMetric(server, me.projectId, Date.now() - HOUR, { duration_ms: 1200 });
  const browser = new FormClient(server);
  await browser.signIn(me.apiKey);
  await browser.get(`/dashboard/projects/${me.projectId}`);
  await browser.post(`/dashboard/projects/${me.projectId}/share-links`);
  const shown = (await browser.get(`/dashboard/projects/${me.projectId}`)).body;
  const url = /id="new-share-link" readonly value="([^"]+)"/.exec(shown)?.[1] as string;
  expect(url).toMatch(/\/share\/cis_share_/);
  const path = new URL(url).pathname;
  expect(shown).toContain(`value="[![build status](${url}/badge/status.svg)](${url})"`);
  expect(shown).toContain(`value="[![duration_ms](${url}/badge/metric/duration_ms.svg)](${url})"`);
  expect(shown).toContain(`<img src="${path}/badge/status.svg"`);
  expect(shown).toContain(`<img src="${path}/badge/metric/duration_ms.svg"`);
  // The previews are real badges.
  expect((await page(`${path}/badge/metric/duration_ms.svg`)).body).toContain('1.2 s');
});
