import { expect, onTestFinished } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import { selectRows } from './database.js';
import { type FakeDiscord, type FakePlatform, fakeDiscord, fakeSlack } from './fake-platforms.js';
import { FakeService } from './fake-service.js';
import { startTestServer, type TestAccount, type TestServer } from './server.js';

/**
 * The channel tests' common stand: fake Slack and Discord webhooks and a generic receiver on
 * 127.0.0.1, a server pointed at them (short retries, a secrets key), an account, and helpers to
 * add a channel and wait for the outbox. Each test file had its own copy of this set-up.
 */

export const SLACK_PATH = '/services/T0001AAAA/B0002BBBB/sLaCkSeCrEt0123456789';
export const SLACK_URL = `https://hooks.slack.com${SLACK_PATH}`;
export const DISCORD_ID = '112233445566778899';
export const DISCORD_TOKEN = 'dIsCoRdToKeN_0123456789-abcdefghijklmnopqrstuvwxyz';
export const DISCORD_URL = `https://discord.com/api/webhooks/${DISCORD_ID}/${DISCORD_TOKEN}`;
export const DISCORD_PATH = `/api/webhooks/${DISCORD_ID}/${DISCORD_TOKEN}`;

export interface ChannelStand {
  server: TestServer;
  me: TestAccount;
  slack: FakePlatform;
  discord: FakeDiscord;
  receiver: FakeService;
  /** The generic receiver's URL for `path` (allowed as a private host for the test). */
  receiverUrl: (path: string) => string;
  /** Adds a channel to the account's project (201 expected); its id. */
  channel: (
    kind: string,
    url: string,
    rules: Record<string, unknown>,
    extra?: Record<string, unknown>,
  ) => Promise<string>;
  /** The outbox jobs of a kind, in the order queued, with their status. */
  jobs: (kind: string) => Promise<Record<string, unknown>[]>;
  /** Waits until at least `count` jobs of the kind are queued and none is pending. */
  settled: (kind: string, count: number) => Promise<void>;
}

/** Starts the fakes and the server; both stop when the test finishes. */
export async function channelStand(
  name: string,
  env: Record<string, string> = {},
  /** The Discord webhook's channel's threads, when the fake is to enforce them. */
  discordThreads?: readonly string[],
): Promise<ChannelStand> {
  const slack = fakeSlack([SLACK_PATH]);
  const discord = fakeDiscord(
    { [DISCORD_ID]: DISCORD_TOKEN },
    discordThreads ? { [DISCORD_ID]: discordThreads } : {},
  );
  const receiver = new FakeService().fallback({ status: 204 });
  const fakes = [slack.service, discord.service, receiver];
  for (const fake of fakes) await fake.start();
  const server = await startTestServer({
    SLACK_WEBHOOK_ORIGIN: slack.service.origin,
    DISCORD_API_ORIGIN: discord.service.origin,
    WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
    OUTBOX_RETRY_BASE_MS: '50',
    OUTBOUND_TIMEOUT_MS: '2000',
    SECRETS_KEY: `${name}-test-key-0123456789abcdefghijklmnopqr`,
    ...env,
  });
  onTestFinished(async () => {
    discord.service.release();
    await server.close();
    for (const fake of fakes) await fake.stop();
  });
  await server.app.ready();
  const me = await server.account();
  const jobs = (kind: string) =>
    selectRows(server.database, `SELECT status FROM outbox WHERE kind = '${kind}' ORDER BY id`);
  return {
    server,
    me,
    slack,
    discord,
    receiver,
    receiverUrl: (path) => `http://127.0.0.1:${receiver.port}${path}`,
    async channel(kind, url, rules, extra = {}) {
      const res = await server.call('POST', Paths.createChannel, {
        key: me.apiKey,
        body: { projectId: me.projectId, kind, name: kind, url, rules, ...extra },
      });
      expect(res.statusCode, res.body).toBe(201);
      return (res.json() as { id: string }).id;
    },
    jobs,
    async settled(kind, count) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const rows = await jobs(kind);
        if (rows.length >= count && rows.every((row) => row.status !== 'pending')) return;
        if (Date.now() > deadline) throw new Error(`${kind} jobs: ${JSON.stringify(rows)}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}

/** The repository the channel tests' runs are of. */
export const RUN_REPO = 'acme/web';

/** A payload's CI context for GitHub run `runId` (job `CI · test`, on main). */
export const runContext = (runId: number, attempt = 1) => ({
  ci: {
    provider: 'github',
    repository: RUN_REPO,
    branch: 'main',
    commit: `c0ffee${runId}`,
    build_number: String(runId),
    build_url: `https://github.com/${RUN_REPO}/actions/runs/${runId}`,
    job: 'test',
  },
  github: { workflow: 'CI', run_id: runId, run_attempt: attempt },
});

/** A build event of run `runId` with this status; its id. */
export async function buildReport(
  stand: ChannelStand,
  runId: number,
  status: string,
  attempt = 1,
): Promise<string> {
  const res = await stand.server.call('POST', Paths.ingestEvents, {
    key: stand.me.apiKey,
    body: {
      projectId: stand.me.projectId,
      eventType: 'build',
      payload: { status, ...runContext(runId, attempt) },
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { id: string }).id;
}

/** A threshold on `key`, every branch: a value 10 % above its baseline is a regression. */
export async function regressionThreshold(stand: ChannelStand, key: string) {
  const res = await stand.server.call('POST', VerdictPaths.createThreshold, {
    key: stand.me.apiKey,
    body: {
      projectId: stand.me.projectId,
      key,
      branch: '*',
      test: 'percentage',
      upper_boundary: 0.1,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
}
