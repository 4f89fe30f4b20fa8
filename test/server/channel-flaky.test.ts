import { describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import {
  type ChannelStand,
  channelStand,
  DISCORD_URL,
  SLACK_URL,
} from '../helpers/channel-server.js';
import { selectRows } from '../helpers/database.js';
import { checkoutCase, type Outcome } from '../helpers/seed-tests.js';

/**
 * Newly flaky tests as a channel rule (issue 30's "newly flaky tests", issue 25's flakiness): a
 * channel whose rules say `flaky` hears once of each test that became flaky with a run's results
 * (not of those flaky before it was added), through a flaky check the ingest queues in the
 * batch's transaction and the outbox runs. Flakiness and scores are judged here from the
 * definitions in docs/tests.md, apart from the server's code.
 */

/**
 * The flaky score of docs/tests.md for a sequence of outcomes on the branch, oldest first: newest
 * first with weight 0.5^(k/10), the weighted mean of (failed or passed on retry: 1) + (outcome
 * differs from the run before: 1), to three decimals.
 */
function score(outcomes: Outcome[]): number {
  let weighted = 0;
  let weights = 0;
  for (let k = 0; k < outcomes.length; k++) {
    const i = outcomes.length - 1 - k;
    const now = outcomes[i] as Outcome;
    const before = outcomes[i - 1];
    const flip = before !== undefined && (before === 'F') !== (now === 'F');
    const signal = (now === 'P' ? 0 : 1) + (flip ? 1 : 0);
    weighted += 0.5 ** (k / 10) * signal;
    weights += 0.5 ** (k / 10);
  }
  return Math.round((weighted / weights) * 1000) / 1000;
}

async function run(
  stand: ChannelStand,
  build: number,
  outcomes: Record<string, Outcome>,
  branch = 'main',
) {
  const res = await stand.server.call('POST', Paths.ingestTests, {
    key: stand.me.apiKey,
    body: {
      projectId: stand.me.projectId,
      buildId: `b${build}`,
      commit: `c${build}`,
      branch,
      cases: Object.entries(outcomes).map(([name, outcome]) => checkoutCase(name, outcome)),
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

/** A flaky message's tests as names and scores (their ids are hashes, checked apart). */
const listedOf = (body: FlakyBody) => ({
  tests: body.data.flaky.tests.map(({ name, score }) => ({ name, score })),
  more: body.data.flaky.more,
});

interface FlakyBody {
  type: string;
  data: { flaky: { tests: { name: string; score: number }[]; more: number }; branch: string };
}

describe('the flaky rule', () => {
  it('announces each test once when it becomes flaky, to the channels that ask, and not the ones flaky before', async () => {
    const stand = await channelStand('channel-flaky');
    // Before any channel asks: 'old' passed on retry (flaky); no check is queued.
    await run(stand, 1, { old: 'R', flips: 'P', retried: 'P', steady: 'P' });
    expect(await stand.jobs('flaky-check')).toEqual([]);

    await stand.channel('webhook', stand.receiverUrl('/flaky'), {
      notify: ['flaky'],
      branches: ['main'],
      // eventTypes filter events; a flaky test is none.
      eventTypes: ['build'],
    });
    await stand.channel('discord', DISCORD_URL, { notify: ['flaky', 'failures'] });
    // Not asked: failures only, or flaky on other branches.
    await stand.channel('slack', SLACK_URL, { notify: ['failures'] });
    await stand.channel('webhook', stand.receiverUrl('/releases'), {
      notify: ['flaky'],
      branches: ['release/*'],
    });

    // Run 2: 'old' still flaky (it was before: not new), 'flips' fails once (not flaky yet).
    await run(stand, 2, { old: 'P', flips: 'F', retried: 'P', steady: 'P' });
    // Run 3: 'flips' passes again (fail then pass: not yet flaky by flips).
    await run(stand, 3, { old: 'P', flips: 'P', retried: 'P', steady: 'P' });
    await stand.settled('flaky-check', 2);
    expect(await stand.jobs('channel-message')).toEqual([]);

    // Run 4 in two batches: 'flips' fails again (fail, pass, fail on main: flaky), then
    // 'retried' passes on retry (flaky). Each batch's news is announced once.
    await run(stand, 4, { old: 'P', flips: 'F', steady: 'P' });
    await stand.receiver.waitFor(1);
    await run(stand, 4, { retried: 'R' });
    await stand.receiver.waitFor(2);
    await stand.settled('flaky-check', 4);
    await stand.settled('channel-message', 4);

    const bodies = stand.receiver.requests.map((r) => ({ path: r.path, ...(r.body as FlakyBody) }));
    expect(bodies.map((b) => [b.path, b.type])).toEqual([
      ['/flaky', 'ci-stats.tests.flaky'],
      ['/flaky', 'ci-stats.tests.flaky'],
    ]);
    expect(listedOf(bodies[0] as FlakyBody)).toEqual({
      tests: [{ name: 'checkout › flips', score: score(['P', 'F', 'P', 'F']) }],
      more: 0,
    });
    expect(listedOf(bodies[1] as FlakyBody)).toEqual({
      tests: [{ name: 'checkout › retried', score: score(['P', 'P', 'P', 'R']) }],
      more: 0,
    });
    expect(bodies[1]?.data.branch).toBe('main');

    // Discord: the same two messages, each titled with its count and listing its tests.
    await stand.discord.service.waitFor(2);
    const embeds = stand.discord
      .messages()
      .map((m) => m.body.embeds?.[0] as { title: string; description: string });
    expect(embeds.map((e) => e.title)).toEqual([
      '🎲 Newly flaky: 1 test · test project',
      '🎲 Newly flaky: 1 test · test project',
    ]);
    expect(embeds[0]?.description).toContain(
      `• checkout › flips (flaky score ${score(['P', 'F', 'P', 'F'])})`,
    );
    expect(embeds[1]?.description).toContain('Flaky since build b4');
    expect(stand.slack.service.requests).toHaveLength(0);

    // Another run changes nothing: no news, no message.
    await run(stand, 5, { old: 'P', flips: 'P', retried: 'P', steady: 'P' });
    await stand.settled('flaky-check', 5);
    expect(await stand.jobs('channel-message')).toHaveLength(4);
    // Tests already announced flake again ('flips' passes on retry, 'retried' fails after its
    // passes) while a new one, 'late', passes on retry: only 'late' is announced, once, though
    // its run comes in two batches and a third run keeps all three flaky.
    await run(stand, 6, { old: 'P', flips: 'R', retried: 'F', steady: 'P' });
    await run(stand, 6, { late: 'R' });
    await stand.receiver.waitFor(3);
    await run(stand, 7, { old: 'P', flips: 'F', retried: 'R', steady: 'P', late: 'R' });
    await stand.settled('flaky-check', 8);
    await stand.settled('channel-message', 6);
    expect(await stand.jobs('channel-message')).toHaveLength(6);
    const later = stand.receiver.requests.slice(2).map((r) => r.body as FlakyBody);
    expect(later.map(listedOf)).toEqual([
      { tests: [{ name: 'checkout › late', score: score(['R']) }], more: 0 },
    ]);

    // The digests count the three.
    const news = await selectRows(stand.server.database, 'SELECT count(*) AS n FROM flaky_news');
    expect(Number(news[0]?.n)).toBe(3);
  });

  it('lists the flakiest first, ten at most, then "… and N more"', async () => {
    const stand = await channelStand('channel-flaky-many');
    await stand.channel('webhook', stand.receiverUrl('/flaky'), { notify: ['flaky'] });
    const names = Array.from({ length: 13 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    // Every test passes in run 1; in run 2, t00-t12 pass on retry, the first three after a
    // failure in run 1 as well, so they score higher.
    await run(stand, 1, Object.fromEntries(names.map((n, i) => [n, i < 3 ? 'F' : 'P'])));
    await stand.settled('flaky-check', 1);
    await run(stand, 2, Object.fromEntries(names.map((n) => [n, 'R'])));
    await stand.receiver.waitFor(1);
    const body = stand.receiver.requests[0]?.body as FlakyBody;
    const high = score(['F', 'R']);
    const low = score(['P', 'R']);
    expect(high).toBeGreaterThan(low);
    expect(listedOf(body)).toEqual({
      tests: [
        ...names.slice(0, 3).map((n) => ({ name: `checkout › ${n}`, score: high })),
        ...names.slice(3, 10).map((n) => ({ name: `checkout › ${n}`, score: low })),
      ],
      more: 3,
    });
  });
});
