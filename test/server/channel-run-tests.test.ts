import { describe, expect, it, onTestFinished } from 'vitest';
import { Paths } from '../../contract/paths.js';
import {
  buildReport,
  type ChannelStand,
  channelStand,
  DISCORD_URL,
  SLACK_URL,
} from '../helpers/channel-server.js';
import { fakeTeams } from '../helpers/fake-platforms.js';
import { checkoutCase, type Outcome } from '../helpers/seed-tests.js';

/**
 * A build message tells its run's test results (issue 30's "test counts with new and flaky
 * failures"): once the results sent for the build's event (ingest-tests' eventId) arrive, after
 * the message, the new failures (the test passed on main before), the known flaky ones and the
 * others are listed apart, a few names each, then "… and N more"; Discord's message is edited in
 * place, Slack's incoming webhook and Teams get a new message (a new failure is worth one), a
 * generic webhook an update of the run (its `webhook-id`) with `data.runTests`. Through the fake
 * platforms, which enforce their formats and size limits. What is new and what is flaky is
 * worked out here from docs/tests.md's definitions, apart from the server's code.
 */

const SIG = 'tEaMsSiG0123456789abcdef';
const TEAMS_URL = `https://prod-12.westeurope.logic.azure.com/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-01&sig=${SIG}`;

/** Six tests with names longer than a message keeps (each cut to 190 characters). */
const LONG = Array.from({ length: 6 }, (_, i) => `n${i} ${'long name '.repeat(20)}`.trim());
/** The names a message shows: the suite and the name, cut to 190 characters with "…". */
const shown = (name: string) => {
  const full = `checkout › ${name}`;
  return full.length <= 190 ? full : `${full.slice(0, 189)}…`;
};

async function tests(
  stand: ChannelStand,
  build: string,
  outcomes: [string, Outcome][],
  eventId?: string,
) {
  const res = await stand.server.call('POST', Paths.ingestTests, {
    key: stand.me.apiKey,
    body: {
      projectId: stand.me.projectId,
      buildId: build,
      commit: `c-${build}`,
      branch: 'main',
      ...(eventId ? { eventId } : {}),
      cases: outcomes.map(([name, outcome]) => checkoutCase(name, outcome)),
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

type Field = { name: string; value: string };
const fieldsOf = (body: unknown) =>
  ((body as { embeds: { fields: Field[] }[] }).embeds[0]?.fields ?? []) as Field[];

describe("a build message with its run's new and flaky failures", () => {
  it('lists them apart once the results arrive after the message, edited in place where it can be, on every platform', async () => {
    const teams = fakeTeams(SIG);
    await teams.service.start();
    onTestFinished(() => teams.service.stop());
    const stand = await channelStand('run-tests', { TEAMS_WEBHOOK_ORIGIN: teams.service.origin });
    await stand.channel('discord', DISCORD_URL, { notify: ['builds'] });
    await stand.channel('slack', SLACK_URL, { notify: ['failures'] });
    await stand.channel('webhook', stand.receiverUrl('/hook'), { notify: ['builds'] });
    await stand.channel('teams', TEAMS_URL, { notify: ['builds'] });

    // Two earlier runs on main, with no event: 'a', 'm' and the long ones passed, 'b' failed
    // both times, 'f' passed on retry once (flaky since), 'p' passes.
    const earlier = (f: Outcome): [string, Outcome][] => [
      ['a', 'P'],
      ['b', 'F'],
      ['f', f],
      ...LONG.map((name): [string, Outcome] => [name, 'P']),
      ['m', 'P'],
      ['p', 'P'],
    ];
    await tests(stand, 't1', earlier('R'));
    await tests(stand, 't2', earlier('P'));

    const eventId = await buildReport(stand, 901, 'failure');
    await stand.discord.service.waitFor(1);
    await stand.slack.service.waitFor(1);
    await teams.service.waitFor(1);
    await stand.receiver.waitFor(1);
    expect(fieldsOf(stand.discord.messages()[0]?.body).map((f) => f.name)).not.toContain(
      'New failures (7)',
    );

    // The run's results, after its message: 'a' and the six long ones fail after passing (new),
    // 'f' fails (flaky: listed as such only), 'b' fails again and 'z' fails on its first run.
    await tests(
      stand,
      'r901',
      [
        ['a', 'F'],
        ['b', 'F'],
        ['f', 'F'],
        ...LONG.map((name): [string, Outcome] => [name, 'F']),
        ['p', 'P'],
        ['z', 'F'],
      ],
      eventId,
    );
    await stand.discord.service.waitFor(1, (r) => r.method === 'PATCH');
    await stand.slack.service.waitFor(2);
    await teams.service.waitFor(2);
    await stand.receiver.waitFor(2);

    // Discord: one message, edited, with the counts and the three lists (a few names of each,
    // the first by name).
    const newNames = ['a', ...LONG].map(shown).sort();
    const expectFields = (fields: Field[], news: string[], total: number, failed: number) => {
      const byName = new Map(fields.map((f) => [f.name, f.value]));
      expect(byName.get('Tests')).toBe(`1 passed, ${failed} failed of ${total} in 0 s`);
      expect(byName.get(`New failures (${news.length})`)).toBe(
        [...news.slice(0, 5).map((n) => `• ${n}`), `… and ${news.length - 5} more`].join('\n'),
      );
      expect(byName.get('Known flaky (1)')).toBe('• checkout › f');
      expect(byName.get('Other failures (2)')).toBe('• checkout › b\n• checkout › z');
    };
    expect(stand.discord.messages()).toHaveLength(1);
    expectFields(fieldsOf(stand.discord.messages()[0]?.body), newNames, 11, 10);

    // Slack's incoming webhook cannot edit: a second message, which lists them.
    type Blocks = { blocks: { text?: { text: string } }[] };
    const slackTexts = (i: number) =>
      ((stand.slack.service.requests[i]?.body as Blocks | undefined)?.blocks ?? []).map(
        (b) => b.text?.text ?? '',
      );
    expect(slackTexts(1)).toContain(
      `*New failures (7)*\n${newNames
        .slice(0, 5)
        .map((n) => `• ${n}`)
        .join('\n')}\n… and 2 more`,
    );
    expect(slackTexts(1)).toContain('*Known flaky (1)*\n• checkout › f');
    expect(slackTexts(0).some((t) => t.includes('New failures'))).toBe(false);

    // Teams: a second card.
    const cards = teams.service.requests.map((r) => JSON.stringify(r.body));
    expect(cards[0]).not.toContain('New failures');
    expect(cards[1]).toContain('**Known flaky (1)**\\n\\n- checkout › f');
    expect(cards[1]).toContain('- … and 2 more');

    // The generic webhook: a new message of the same run, with data.runTests.
    type Named = { tests: { id: string; name: string }[]; count: number };
    type Hook = {
      data: {
        run: { key: string };
        eventId: string;
        runTests?: Record<string, unknown> & {
          newFailures: Named;
          flakyFailures: Named;
          otherFailures: Named;
        };
      };
    };
    const hooks = stand.receiver.requests.map((r) => r.body as Hook);
    expect(hooks[1]?.data.run.key).toBe(hooks[0]?.data.run.key);
    const ids = stand.receiver.requests.map((r) => r.headers['webhook-id']);
    expect(ids[1]).toBe(ids[0]);
    expect(hooks[1]?.data.eventId).toBe(eventId);
    const names = (named: Named | undefined) => ({
      names: named?.tests.map((t) => t.name),
      count: named?.count,
    });
    const runTests = hooks[1]?.data.runTests;
    expect(runTests).toMatchObject({
      total: 11,
      passed: 1,
      failed: 10,
      errors: 0,
      skipped: 0,
      passedOnRetry: 0,
      durationMs: 132,
    });
    expect(names(runTests?.newFailures)).toEqual({ names: newNames.slice(0, 5), count: 7 });
    expect(names(runTests?.flakyFailures)).toEqual({ names: ['checkout › f'], count: 1 });
    expect(names(runTests?.otherFailures)).toEqual({
      names: ['checkout › b', 'checkout › z'],
      count: 2,
    });

    // A second batch of the same run: 'm' fails after passing. The message is edited again
    // (one message still), Slack and Teams get another (one more new failure).
    await tests(stand, 'r901', [['m', 'F']], eventId);
    await stand.discord.service.waitFor(2, (r) => r.method === 'PATCH');
    await stand.slack.service.waitFor(3);
    await teams.service.waitFor(3);
    await stand.settled('run-tests', 2);
    await stand.settled('channel-run-update', 8);
    expect(stand.discord.messages()).toHaveLength(1);
    const withM = [...newNames, shown('m')].sort();
    expect(withM.slice(0, 2)).toEqual(['checkout › a', 'checkout › m']);
    expectFields(fieldsOf(stand.discord.messages()[0]?.body), withM, 12, 11);

    // Paced: no platform answered 429, none refused a message as too large.
    for (const [name, fake] of Object.entries({
      discord: stand.discord,
      slack: stand.slack,
      teams,
    })) {
      const seen = fake.service.requests.map((r) => `${r.method} ${r.at} ${r.replied}`);
      expect(fake.limited(), `${name}: ${seen.join(', ')}`).toBe(0);
      expect(fake.service.requests.every((r) => (r.replied ?? 0) < 300)).toBe(true);
    }
  });
});
