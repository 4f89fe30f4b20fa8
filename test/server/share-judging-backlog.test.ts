import { expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { holdJudging } from '../helpers/hold-judging.js';
import { storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Issue 22, part 1: the big project's first share page took 21.7 s on SQLite (100 s on
 * PostgreSQL) because it waited for the judging of every metric record stored before it, in the
 * whole deployment (32,000 records of 100 keys after a bulk load). A share page and a badge now
 * show units and directions as judged so far and never wait for judging; the API still does.
 * Judging is held here by taking its lock, so "waits for judging" is an answer that never comes
 * while the lock is held, not a slow one.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

/** `request`'s answer, or 'still waiting' if it has not come while judging is held. */
const whileHeld = <T>(request: Promise<T>) =>
  Promise.race([
    request,
    new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 5000)),
  ]);

it('answers the share page and a metric badge while judging is behind, and the API waits for it', async () => {
  const link = await server.call('POST', Paths.createShareLink, {
    key: me.apiKey,
    body: { projectId: me.projectId },
  });
  const { token } = link.json() as { token: string };
  const release = await holdJudging(server);
  let released = false;
  try {
    await storeMetric(server, me.projectId, Date.now() - 60_000, { bundle_bytes: 531_999 });
    const page = await whileHeld(server.app.inject({ method: 'GET', url: `/share/${token}` }));
    expect(page === 'still waiting' ? page : page.statusCode).toBe(200);
    if (page !== 'still waiting') expect(page.body).toContain('bundle_bytes');
    const badge = await whileHeld(
      server.app.inject({ method: 'GET', url: `/share/${token}/badge/metric/bundle_bytes.svg` }),
    );
    expect(badge === 'still waiting' ? badge : badge.statusCode).toBe(200);
    if (badge !== 'still waiting') expect(badge.body).toContain('532 kB');
    // The API's key list includes every record judged before it answers: it waits.
    const keys = server.call('GET', `${Paths.getMetricKeys}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(await whileHeld(keys)).toBe('still waiting');
    await release();
    released = true;
    expect((await keys).statusCode).toBe(200);
  } finally {
    if (!released) await release();
  }
});
