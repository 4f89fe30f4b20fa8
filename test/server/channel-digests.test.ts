import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { nextDigestAt } from '../../server/domain/channels/digest-schedule.js';
import { selectRows } from '../helpers/database.js';
import { type FakeDiscord, fakeDiscord } from '../helpers/fake-platforms.js';
import { FakeService } from '../helpers/fake-service.js';
import { storeMetric } from '../helpers/seed-records.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Digests (issue 30): a channel may get a daily or weekly digest at a set time (UTC), beside or
 * instead of single messages. The scheduler is driven with a controlled clock (`tick(at)`); the
 * digest goes through the outbox to fakes that enforce their platform's rules, and its figures
 * are checked against counts made here from the events sent.
 */

const DISCORD_ID = '112233445566778899';
const DISCORD_TOKEN = 'dIsCoRdToKeN_0123456789-abcdefghijklmnopqrstuvwxyz';
const DISCORD_URL = `https://discord.com/api/webhooks/${DISCORD_ID}/${DISCORD_TOKEN}`;
const DAY = 86_400_000;

let server: TestServer;
let me: TestAccount;
let discord: FakeDiscord;
let receiver: FakeService;

beforeEach(async () => {
  discord = fakeDiscord({ [DISCORD_ID]: DISCORD_TOKEN });
  receiver = new FakeService().fallback({ status: 204 });
  for (const fake of [discord.service, receiver]) await fake.start();
  server = await startTestServer({
    DISCORD_API_ORIGIN: discord.service.origin,
    WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
    OUTBOX_RETRY_BASE_MS: '50',
    OUTBOUND_TIMEOUT_MS: '2000',
    SECRETS_KEY: 'channel-digests-test-key-0123456789abcdefg',
  });
  await server.app.ready();
  me = await server.account();
});
afterEach(async () => {
  await server?.close();
  for (const fake of [discord.service, receiver]) await fake.stop();
});

async function channel(kind: string, url: string, rules: Record<string, unknown>) {
  const res = await server.call('POST', Paths.createChannel, {
    key: me.apiKey,
    body: { projectId: me.projectId, kind, name: kind, url, rules },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string };
}

async function event(eventType: string, branch: string, status?: string) {
  const res = await server.call('POST', Paths.ingestEvents, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      eventType,
      payload: { ...(status ? { status } : {}), ci: { branch }, version: 'v1.2.0' },
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

const tick = (at: number) => server.app.services.digests.tick(at);

const digestJobs = () =>
  selectRows(server.database, "SELECT status FROM outbox WHERE kind = 'channel-digest'");

async function delivered(count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const jobs = await digestJobs();
    if (jobs.length >= count && jobs.every((job) => job.status === 'delivered')) return;
    if (Date.now() > deadline) throw new Error(`digests: ${JSON.stringify(jobs)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The next 09:00 UTC after now: the first digest's time, computed apart from the server's. */
function next0900(): number {
  const now = new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 9, 0);
  return today > now.getTime() ? today : today + DAY;
}

type Fields = { name: string; value: string }[];

/** Nearest-rank median, as the statistics define it (docs/api.md). */
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1] as number;
};
/** The statistics' sketch gives a median within 2 %. */
const near = (got: unknown, want: number) => {
  expect(typeof got).toBe('number');
  expect(Math.abs((got as number) - want)).toBeLessThanOrEqual(want * 0.02);
};

/**
 * Build durations (`duration_ms`) in the period ending at `due` and in the one before, on main
 * and on a feature branch, stored with their times in order: what the digests' trend reads.
 */
async function durations(due: number) {
  const before = { main: [6000, 6500, 7000, 7400], feature: [30_000] };
  const now = { main: [9000, 9400, 9800, 10_200, 12_000], feature: [60_000, 61_000] };
  const start = due - DAY;
  const span = Math.max(1, Date.now() - start - 1000);
  const stored = (values: { main: number[]; feature: number[] }) => [
    ...values.main.map((value) => ({ value, branch: 'main' })),
    ...values.feature.map((value) => ({ value, branch: 'feature/x' })),
  ];
  const earlier = stored(before);
  for (const [i, { value, branch }] of earlier.entries()) {
    await storeMetric(server, me.projectId, start - DAY + (i + 1) * 60_000, {
      duration_ms: value,
      ci: { branch },
    });
  }
  const later = stored(now);
  for (const [i, { value, branch }] of later.entries()) {
    const at = start + Math.floor(((i + 1) / (later.length + 1)) * span);
    await storeMetric(server, me.projectId, at, { duration_ms: value, ci: { branch } });
  }
  return { before, now };
}

describe('digests', () => {
  it('daily at their time, instead of or beside single messages, once per period, with the period before', async () => {
    const due = next0900();
    // Instead of single messages: notify is empty.
    await channel('webhook', `http://127.0.0.1:${receiver.port}/digest`, {
      notify: [],
      digest: { every: 'day', at: '09:00' },
    });
    // Beside single messages (releases), for main only.
    await channel('discord', DISCORD_URL, {
      notify: ['releases'],
      branches: ['main'],
      digest: { every: 'day', at: '09:00' },
    });
    const seeded = await durations(due);
    for (const status of ['success', 'success', 'success', 'failure']) {
      await event('build', 'main', status);
    }
    await event('build', 'feature/x', 'failure');
    await event('build', 'feature/x', 'failure');
    await event('build', 'main', 'cancelled');
    await event('release', 'main');
    // The release's own message, and nothing else yet.
    await discord.service.waitFor(1);

    expect(await tick(due - 60_000)).toBe(0);
    expect(await tick(due + 3_600_000)).toBe(2);
    // Taken: the same period is queued once.
    expect(await tick(due + 3_600_000)).toBe(0);
    await delivered(2);

    // Counted here: all branches — 7 builds, 3 passed, 3 failed, 1 release; main — 5, 3, 1, 1.
    const [first] = receiver.requests.map(
      (r) => r.body as { type: string; data: { digest: unknown } },
    );
    expect(first?.type).toBe('ci-stats.digest');
    const { duration, ...counted } = (first?.data.digest ?? {}) as {
      duration: {
        key: string;
        branch: string | null;
        unit: string;
        current: number;
        previous: number;
      };
    };
    expect(counted).toEqual({
      every: 'day',
      from: new Date(due - DAY).toISOString(),
      to: new Date(due).toISOString(),
      current: { builds: 7, passed: 3, failed: 3, releases: 1 },
      previous: { builds: 0, passed: 0, failed: 0, releases: 0 },
      activeAlerts: 0,
      newFlaky: 0,
    });
    // Every branch: the webhook channel names none.
    expect(duration).toMatchObject({ key: 'duration_ms', branch: null, unit: 'ms' });
    near(duration.current, median([...seeded.now.main, ...seeded.now.feature]));
    near(duration.previous, median([...seeded.before.main, ...seeded.before.feature]));
    const [release, digest] = discord.messages();
    expect((release?.body.embeds?.[0] as { title: string } | undefined)?.title).toContain(
      'Released',
    );
    const embed = digest?.body.embeds?.[0] as { title: string; fields: Fields };
    expect(embed.title).toBe('📊 Daily digest · test project');
    // 3 passed of 4 that passed or failed: 75 %; no rate the day before to compare with.
    expect(embed.fields.slice(0, 6).map((f) => [f.name, f.value])).toEqual([
      ['Builds', '5 (+5)'],
      ['Success rate', '75 %'],
      ['Failed', '1'],
      ['Releases', '1'],
      ['Active alerts', '0'],
      ['New flaky tests', '0'],
    ]);
    // main only, as the channel's one branch: 9.8 s against 6.5 s the day before (+3.3 s, +51 %).
    expect(median(seeded.now.main)).toBe(9800);
    expect(median(seeded.before.main)).toBe(6500);
    const [trend] = embed.fields.slice(6);
    expect(trend?.name).toBe('Duration (median)');
    const shown = /^([\d.]+) s \(\+([\d.]+) s, \+(\d+) %\)$/.exec(trend?.value ?? '');
    expect(shown, trend?.value).not.toBeNull();
    const [, current, change, percent] = (shown as RegExpExecArray).map(Number);
    near((current as number) * 1000, 9800);
    expect(Math.abs((change as number) * 1000 - 3300)).toBeLessThanOrEqual(
      9800 * 0.02 + 6500 * 0.02,
    );
    expect(Math.abs((percent as number) - 51)).toBeLessThanOrEqual(4);
    expect(discord.limited()).toBe(0);

    // The next day: nothing new, and the day before is the one above.
    expect(await tick(due + DAY + 3_600_000)).toBe(2);
    await delivered(4);
    const second = receiver.requests[1]?.body as { data: { digest: Record<string, unknown> } };
    expect(second.data.digest).toMatchObject({
      to: new Date(due + DAY).toISOString(),
      current: { builds: 0, passed: 0, failed: 0, releases: 0 },
      previous: { builds: 7, passed: 3, failed: 3, releases: 1 },
    });
    const next = discord.messages()[2]?.body.embeds?.[0] as { fields: Fields };
    expect(next.fields.slice(0, 2).map((f) => f.value)).toEqual([
      '0 (−5)',
      'no passed or failed build',
    ]);
    // No duration that day: said so, not a change against the day before.
    expect(next.fields[6]).toMatchObject({
      name: 'Duration (median)',
      value: 'no duration recorded',
    });
    // The webhook channel had no single message at all.
    expect(receiver.requests).toHaveLength(2);
  });

  it('a digest removed from the rules is due no more; a channel without notify needs a digest', async () => {
    const made = await channel('webhook', `http://127.0.0.1:${receiver.port}/digest`, {
      notify: ['builds'],
      digest: { every: 'week', at: '06:30' },
    });
    const updated = await server.call('POST', Paths.updateChannel, {
      key: me.apiKey,
      body: { channelId: made.id, rules: { notify: ['builds'] } },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(await tick(Date.now() + 30 * DAY)).toBe(0);

    const refused = await server.call('POST', Paths.createChannel, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        kind: 'webhook',
        name: 'x',
        url: `http://127.0.0.1:${receiver.port}/x`,
        rules: { notify: [] },
      },
    });
    expect(refused.statusCode).toBe(400);
    expect(JSON.stringify(refused.json().issues)).toContain('unless the channel has a digest');
    const badTime = await server.call('POST', Paths.createChannel, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        kind: 'webhook',
        name: 'x',
        url: `http://127.0.0.1:${receiver.port}/x`,
        rules: { notify: [], digest: { every: 'day', at: '24:00' } },
      },
    });
    expect(badTime.statusCode).toBe(400);
    expect(JSON.stringify(badTime.json().issues)).toContain('must be HH:MM (UTC)');
    expect(await selectRows(server.database, 'SELECT name FROM channels')).toEqual([
      { name: 'webhook' },
    ]);
  });
});

describe('digest times', () => {
  it('daily: the next HH:MM UTC; weekly: the next Monday at HH:MM', () => {
    // Wednesday 2026-11-25 10:00 UTC.
    const wednesday = Date.UTC(2026, 10, 25, 10, 0);
    expect(nextDigestAt({ every: 'day', at: '09:00' }, wednesday)).toBe(
      Date.UTC(2026, 10, 26, 9, 0),
    );
    expect(nextDigestAt({ every: 'day', at: '10:30' }, wednesday)).toBe(
      Date.UTC(2026, 10, 25, 10, 30),
    );
    // Exactly at the time: the next one.
    expect(nextDigestAt({ every: 'day', at: '10:00' }, wednesday)).toBe(
      Date.UTC(2026, 10, 26, 10, 0),
    );
    expect(nextDigestAt({ every: 'week', at: '06:30' }, wednesday)).toBe(
      Date.UTC(2026, 10, 30, 6, 30),
    );
    const monday = Date.UTC(2026, 10, 30, 6, 0);
    expect(nextDigestAt({ every: 'week', at: '06:30' }, monday)).toBe(
      Date.UTC(2026, 10, 30, 6, 30),
    );
    expect(nextDigestAt({ every: 'week', at: '05:00' }, monday)).toBe(Date.UTC(2026, 11, 7, 5, 0));
  });
});
