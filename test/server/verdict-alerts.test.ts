import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import { selectRows } from '../helpers/database.js';
import { FakeService, type RecordedRequest } from '../helpers/fake-service.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Alerts announced in chat (issue 23): the project's webhook, stored sealed, gets one message per
 * regression of the default branch, through the outbox, and none for a pull request.
 */

const WEBHOOK_ID = '998877665544332211';
const TOKEN = 'alert_TOKEN-secret_abcdefghijklmnopqrstuvwxyz0123456789';
const WEBHOOK_URL = `https://discord.com/api/webhooks/${WEBHOOK_ID}/${TOKEN}`;

let discord: FakeService;
let server: TestServer;
let me: TestAccount;

beforeEach(async () => {
  discord = new FakeService();
  await discord.start();
  server = await startTestServer({
    DISCORD_API_ORIGIN: discord.origin,
    OUTBOX_RETRY_BASE_MS: '50',
    OUTBOUND_TIMEOUT_MS: '500',
    // Sealed on both backends (PostgreSQL without a key stores secrets as they are).
    SECRETS_KEY: 'verdict-alerts-secrets-key-0123456789abcdef',
  });
  await server.app.ready();
  me = await server.account();
});

afterEach(async () => {
  await server.close();
  await discord.stop();
});

async function ingest(branch: string, commit: string, t: number, pr?: object) {
  const res = await server.call('POST', Paths.ingestMetrics, {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      payload: {
        t,
        directions: { t: 'lower' },
        ci: { branch, commit, ...(pr ? { pull_request: pr } : {}) },
      },
    },
  });
  expect(res.statusCode).toBe(200);
  return res.json().id as string;
}

describe('alert notifications', () => {
  it('notifies the project webhook once per regression of the default branch, never for a pull request', async () => {
    const set = await server.call('POST', VerdictPaths.updateProject, {
      key: me.apiKey,
      body: { projectId: me.projectId, chat_webhook: WEBHOOK_URL },
    });
    expect(set.json()).toMatchObject({ chat_webhook: true });
    expect(
      JSON.stringify(await selectRows(server.database, 'SELECT * FROM projects')),
    ).not.toContain(TOKEN);
    await server.call('POST', VerdictPaths.createThreshold, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        key: 't',
        branch: '*',
        test: 'percentage',
        upper_boundary: 0.1,
      },
    });
    await ingest('main', 'm0', 100);
    await ingest('feature', 'f1', 300, { number: 1, target_branch: 'main', base_sha: 'm0' });
    const regression = await ingest('main', 'm1', 200);
    await ingest('main', 'm2', 100);

    const [sent] = (await discord.waitFor(1)) as [RecordedRequest];
    expect(sent.path).toBe(`/api/webhooks/${WEBHOOK_ID}/${TOKEN}`);
    const embed = (sent.body as { embeds: { title: string; description: string }[] }).embeds[0];
    expect(embed?.title).toBe('Regression: t');
    expect(embed?.description).toContain('m1');
    // Both regressions are alerts; only the default branch's was announced.
    const alerts = (
      await server.call('GET', `${VerdictPaths.getAlerts}?projectId=${me.projectId}`, {
        key: me.apiKey,
      })
    ).json().alerts;
    expect(alerts.map((a: { commit: string }) => a.commit)).toEqual(['m1', 'f1']);
    expect(alerts[0].record_id).toBe(regression);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(discord.requests).toHaveLength(1);

    const removed = await server.call('POST', VerdictPaths.updateProject, {
      key: me.apiKey,
      body: { projectId: me.projectId, chat_webhook: null },
    });
    expect(removed.json()).toMatchObject({ chat_webhook: false });
    await ingest('main', 'm3', 500);
    await server.app.services.judging.catchUp();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(discord.requests).toHaveLength(1);
  });

  it('refuses a webhook that is not Discord, naming the field', async () => {
    const res = await server.call('POST', VerdictPaths.updateProject, {
      key: me.apiKey,
      body: { projectId: me.projectId, chat_webhook: 'https://evil.example.com/hook' },
    });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 400,
      body: { error: 'chat_webhook must be a Discord webhook URL.' },
    });
  });
});
