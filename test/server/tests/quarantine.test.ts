import { beforeEach, describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../../contract/error-texts.js';
import { Paths } from '../../../contract/paths.js';
import type { QuarantineList } from '../../../contract/tests/quarantine.js';
import type { TestList } from '../../../contract/tests/test-queries.js';
import { selectRows } from '../../helpers/database.js';
import { PLANTED, seedTests } from '../../helpers/seed-tests.js';
import { eachTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

/** Quarantine-test, unquarantine-test and get-quarantine (docs/tests.md), on both backends. */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

/** Test ids by name, as get-tests gives them. */
let ids: Record<string, string>;

beforeEach(async () => {
  const res = await server.call('POST', Paths.ingestTests, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      buildId: '1',
      cases: [
        {
          suite: 'cart',
          classname: 'CartTest',
          name: 'discount',
          duration_ms: 3,
          status: 'failed',
        },
        {
          suite: 'cart',
          name: 'total',
          file: './src/cart.test.ts',
          duration_ms: 2,
          status: 'passed',
        },
      ],
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  const list = await server.call('GET', `${Paths.getTests}?projectId=${me.projectId}&sort=name`, {
    key: me.apiKey,
  });
  ids = Object.fromEntries((list.json() as TestList).tests.map((t) => [t.name, t.id]));
  expect(Object.keys(ids).sort()).toEqual(['discount', 'total']);
});

const post = (path: string, body: unknown, key = me.apiKey) =>
  server.call('POST', path, { key, body });
const list = (key = me.apiKey, projectId = me.projectId) =>
  server.call('GET', `${Paths.getQuarantine}?projectId=${encodeURIComponent(projectId)}`, { key });

async function ingestKey(): Promise<string> {
  const res = await post(Paths.createApiKey, { label: 'ci', scope: 'ingest' });
  expect(res.statusCode).toBe(201);
  return (res.json() as { apiKey: string }).apiKey;
}

describe('quarantine', () => {
  it('quarantines a test, lists it with its identity, and takes it out again', async () => {
    const before = Date.now();
    const added = await post(Paths.quarantineTest, {
      projectId: me.projectId,
      test: ids.discount,
      reason: 'flaky since the payment mock',
    });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json()).toEqual({ test: ids.discount, quarantined: true, changed: true });

    // Again: nothing changes, the first reason and time stay.
    const again = await post(Paths.quarantineTest, {
      projectId: me.projectId,
      test: ids.discount,
      reason: 'another reason',
    });
    expect(again.json()).toEqual({ test: ids.discount, quarantined: true, changed: false });

    const listed = (await list()).json() as QuarantineList;
    expect(listed).toEqual({
      projectId: me.projectId,
      tests: [
        {
          id: ids.discount,
          suite: 'cart',
          classname: 'CartTest',
          name: 'discount',
          file: null,
          reason: 'flaky since the payment mock',
          created_at: expect.any(String),
          automatic: false,
        },
      ],
    });
    const at = Date.parse(listed.tests[0]?.created_at as string);
    expect(at).toBeGreaterThanOrEqual(before - 1);
    expect(at).toBeLessThanOrEqual(Date.now() + 1);

    // get-tests and get-test say so.
    const tests = await server.call(
      'GET',
      `${Paths.getTests}?projectId=${me.projectId}&sort=name`,
      { key: me.apiKey },
    );
    expect((tests.json() as TestList).tests.map((t) => [t.name, t.quarantined])).toEqual([
      ['total', false],
      ['discount', true],
    ]);
    const one = await server.call(
      'GET',
      `${Paths.getTest}?projectId=${me.projectId}&test=${ids.discount}`,
      { key: me.apiKey },
    );
    expect(one.json().test.quarantined).toBe(true);

    const removed = await post(Paths.unquarantineTest, {
      projectId: me.projectId,
      test: ids.discount,
    });
    expect(removed.json()).toEqual({ test: ids.discount, quarantined: false, changed: true });
    const removedAgain = await post(Paths.unquarantineTest, {
      projectId: me.projectId,
      test: ids.discount,
    });
    expect(removedAgain.json()).toEqual({ test: ids.discount, quarantined: false, changed: false });
    expect(((await list()).json() as QuarantineList).tests).toEqual([]);
  });

  it('lets an ingest-only key read the list, and only the list', async () => {
    await post(Paths.quarantineTest, { projectId: me.projectId, test: ids.total, reason: 'r' });
    const key = await ingestKey();
    const read = await list(key);
    expect(read.statusCode).toBe(200);
    expect((read.json() as QuarantineList).tests.map((t) => [t.id, t.file])).toEqual([
      [ids.total, 'src/cart.test.ts'],
    ]);
    for (const path of [Paths.quarantineTest, Paths.unquarantineTest]) {
      const refused = await post(
        path,
        { projectId: me.projectId, test: ids.discount, reason: 'r' },
        key,
      );
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ error: OwnError.ingestOnly });
    }
    expect(((await list()).json() as QuarantineList).tests.map((t) => t.id)).toEqual([ids.total]);
  });

  it('refuses bad input naming the field, unknown tests and foreign projects, changing nothing', async () => {
    const cases: [unknown, string][] = [
      [{ test: ids.discount, reason: 'r' }, SpecError.projectIdRequired],
      [{ projectId: me.projectId, reason: 'r' }, 'test is invalid.'],
      [{ projectId: me.projectId, test: ids.discount }, 'reason is invalid.'],
      [{ projectId: me.projectId, test: ids.discount, reason: '' }, 'reason is invalid.'],
      [
        { projectId: me.projectId, test: ids.discount, reason: 'x'.repeat(501) },
        'reason is invalid.',
      ],
      [
        { projectId: me.projectId, test: ids.discount, reason: 'r', extra: 1 },
        SpecError.invalidBody,
      ],
    ];
    for (const [body, error] of cases) {
      const res = await post(Paths.quarantineTest, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ error });
    }
    const noTest = await post(Paths.unquarantineTest, { projectId: me.projectId });
    expect(noTest.statusCode).toBe(400);
    expect(noTest.json()).toMatchObject({ error: 'test is invalid.' });

    const unknown = await post(Paths.quarantineTest, {
      projectId: me.projectId,
      test: 'no-such-test',
      reason: 'r',
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: OwnError.testNotFound });

    const other = await server.account();
    const foreign = await post(
      Paths.quarantineTest,
      { projectId: me.projectId, test: ids.discount, reason: 'r' },
      other.apiKey,
    );
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toEqual({ error: SpecError.forbiddenProject });
    const foreignList = await list(other.apiKey);
    expect(foreignList.statusCode).toBe(403);
    const badQuery = await list(me.apiKey, '');
    expect(badQuery.statusCode).toBe(400);
    expect(badQuery.json()).toMatchObject({ error: SpecError.projectIdRequired });
    const noKey = await server.call('GET', `${Paths.getQuarantine}?projectId=${me.projectId}`);
    expect(noKey.statusCode).toBe(401);

    expect(((await list()).json() as QuarantineList).tests).toEqual([]);
  });
});

describe('automatic quarantine', () => {
  /**
   * flips' flaky score from the definition (docs/tests.md): over its runs newest first, with
   * weight 0.5^(k/10) for the k-th, the mean of (failed or passed on retry: 1) + (outcome differs
   * from the run before: 1), a pass on retry being a pass.
   */
  function plantedScore(outcomes: string[]): number {
    const newestFirst = [...outcomes].reverse();
    let sum = 0;
    let weights = 0;
    newestFirst.forEach((outcome, k) => {
      const before = newestFirst[k + 1];
      const failed = outcome === 'F';
      const value =
        (failed || outcome === 'R' ? 1 : 0) +
        (before !== undefined && failed !== (before === 'F') ? 1 : 0);
      const weight = 0.5 ** (k / 10);
      sum += weight * value;
      weights += weight;
    });
    return Math.round((sum / weights) * 1000) / 1000;
  }

  const settings = (body: unknown, key = me.apiKey) => post(Paths.setTestSettings, body, key);

  it('is off by default; with a threshold, the list takes the tests flaky at or above it', async () => {
    await seedTests(server, me);
    const score = plantedScore(PLANTED.flips as string[]);
    expect(score).toBeGreaterThan(0.5);
    const read = await server.call('GET', `${Paths.getTestSettings}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(read.json()).toEqual({ projectId: me.projectId, autoQuarantineScore: null });
    expect(((await list()).json() as QuarantineList).tests).toEqual([]);

    // Just above flips' score: nothing is taken.
    const high = await settings({ projectId: me.projectId, autoQuarantineScore: score + 0.001 });
    expect(high.json()).toEqual({ projectId: me.projectId, autoQuarantineScore: score + 0.001 });
    expect(((await list()).json() as QuarantineList).tests).toEqual([]);

    // At its score: flips, and only flips (broken failed for good, it does not flip).
    await settings({ projectId: me.projectId, autoQuarantineScore: score });
    const key = await ingestKey();
    const listed = (await list(key)).json() as QuarantineList;
    expect(listed.tests).toEqual([
      expect.objectContaining({
        suite: 'planted',
        name: 'flips',
        automatic: true,
        reason: `automatic: flaky score ${score} ≥ ${score}`,
      }),
    ]);

    // Off again: what was taken stays until the owner takes it out.
    await settings({ projectId: me.projectId, autoQuarantineScore: null });
    expect(((await list()).json() as QuarantineList).tests.map((t) => t.name)).toEqual(['flips']);
    await post(Paths.unquarantineTest, {
      projectId: me.projectId,
      test: listed.tests[0]?.id,
    });
    expect(((await list()).json() as QuarantineList).tests).toEqual([]);
  });

  /** Runs of flips alone after the planted ones: run n at commit c<n> on main. */
  async function flipsRuns(outcomes: string[], first: number) {
    for (const [i, outcome] of outcomes.entries()) {
      const n = first + i;
      const res = await post(Paths.ingestTests, {
        projectId: me.projectId,
        buildId: `b${n}`,
        commit: `c${n}`,
        branch: 'main',
        cases: [
          {
            suite: 'planted',
            name: 'flips',
            duration_ms: 10,
            status: outcome === 'F' ? 'failed' : 'passed',
            ...(outcome === 'R' ? { attempts: 2 } : {}),
          },
        ],
      });
      expect(res.statusCode, res.body).toBe(200);
    }
  }

  it('does not take again a test the owner released, until its runs since then are flaky enough', async () => {
    await seedTests(server, me);
    const threshold = plantedScore(PLANTED.flips as string[]);
    await settings({ projectId: me.projectId, autoQuarantineScore: threshold });
    const taken = ((await list()).json() as QuarantineList).tests;
    expect(taken).toEqual([expect.objectContaining({ name: 'flips', automatic: true })]);
    const id = taken[0]?.id as string;

    // The owner takes it out: the next reads (the reporter's, each run's) leave it out.
    const released = await post(Paths.unquarantineTest, { projectId: me.projectId, test: id });
    expect(released.json()).toMatchObject({ quarantined: false, changed: true });
    const releases = await selectRows(
      server.database,
      'SELECT test_key, released_at FROM test_quarantine_releases',
    );
    expect(releases).toEqual([{ test_key: id, released_at: expect.anything() }]);
    const releasedAt = Number(releases[0]?.released_at);
    while (Date.now() <= releasedAt) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(((await list()).json() as QuarantineList).tests).toEqual([]);
    expect(((await list()).json() as QuarantineList).tests).toEqual([]);

    // Steady runs since: still out, though its 30 days still hold the flakes of before.
    await flipsRuns(['P', 'P', 'P'], 9);
    expect(((await list()).json() as QuarantineList).tests).toEqual([]);
    // One failure since: not flaky on its runs since the release (it needs a pass between two).
    await flipsRuns(['F'], 12);
    expect(((await list()).json() as QuarantineList).tests).toEqual([]);

    // It flakes again since the release, its score over those runs alone at the threshold.
    const since = ['P', 'P', 'P', 'F', 'P', 'F'];
    const score = plantedScore(since);
    expect(score).toBeGreaterThanOrEqual(threshold);
    await flipsRuns(['P', 'F'], 13);
    const again = ((await list()).json() as QuarantineList).tests;
    expect(again).toEqual([
      expect.objectContaining({
        id,
        automatic: true,
        reason: `automatic: flaky score ${score} ≥ ${threshold} since it was taken out of quarantine at ${new Date(releasedAt).toISOString()}`,
      }),
    ]);
    // Taken again, its release is over.
    expect(
      await selectRows(server.database, 'SELECT test_key FROM test_quarantine_releases'),
    ).toEqual([]);

    // Released once more, then quarantined by the owner: a quarantine ends the release too.
    await post(Paths.unquarantineTest, { projectId: me.projectId, test: id });
    expect(((await list()).json() as QuarantineList).tests).toEqual([]);
    await post(Paths.quarantineTest, { projectId: me.projectId, test: id, reason: 'mine' });
    expect(
      await selectRows(server.database, 'SELECT test_key FROM test_quarantine_releases'),
    ).toEqual([]);
    expect(((await list()).json() as QuarantineList).tests).toEqual([
      expect.objectContaining({ id, automatic: false, reason: 'mine' }),
    ]);
  });

  it('refuses a bad threshold naming the field, and ingest-only keys', async () => {
    for (const autoQuarantineScore of [0, -1, 2.5, '0.5']) {
      const res = await settings({ projectId: me.projectId, autoQuarantineScore });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'autoQuarantineScore is invalid.' });
    }
    const key = await ingestKey();
    const refused = await settings({ projectId: me.projectId, autoQuarantineScore: 1 }, key);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: OwnError.ingestOnly });
    const read = await server.call('GET', `${Paths.getTestSettings}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(read.json().autoQuarantineScore).toBeNull();
  });
});
