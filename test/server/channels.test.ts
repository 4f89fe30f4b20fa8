import { describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import { selectRows } from '../helpers/database.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** A project's notification channels: owner-only CRUD, URLs validated per platform and sealed. */

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started), {
  SECRETS_KEY: 'channels-test-key-0123456789abcdef0123456789',
});

const SLACK_SECRET = 'xoxSecretPart0123456789abcdef';
const SLACK_URL = `https://hooks.slack.com/services/T0001AAAA/B0002BBBB/${SLACK_SECRET}`;
const DISCORD_TOKEN = 'dISCORDtoken_0123456789-abcdefghijklmnopqrstuvwxyz';
const DISCORD_URL = `https://discord.com/api/webhooks/112233445566778899/${DISCORD_TOKEN}`;
const TEAMS_SIG = 'tEaMsSiGnAtUrE0123456789abcdef';
const TEAMS_URL = `https://prod-12.westeurope.logic.azure.com/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=${TEAMS_SIG}`;
const HOOK_URL = 'https://hooks.example.org/ci?token=recEIVERsecret42';

const RULES = { notify: ['failures', 'changes'], branches: ['main', 'release/*'] };

const call = (path: string, body: unknown, key = me.apiKey) =>
  server.call('POST', path, { key, body });
const create = (body: Record<string, unknown>, key?: string) =>
  call(Paths.createChannel, { projectId: me.projectId, name: 'ci', rules: RULES, ...body }, key);
const list = async (projectId = me.projectId, key = me.apiKey) =>
  server.call('GET', `${Paths.getChannels}?projectId=${projectId}`, { key });
const rows = () => selectRows(server.database, 'SELECT * FROM channels');

describe('channels', () => {
  it('adds one of each kind; the answer and the list show the host, never the secret part', async () => {
    const made = [];
    for (const [kind, url] of [
      ['slack', SLACK_URL],
      ['discord', DISCORD_URL],
      ['teams', TEAMS_URL],
      ['webhook', HOOK_URL],
    ]) {
      const res = await create({ kind, url, name: `${kind} channel` });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.headers['cache-control']).toBe('no-store');
      made.push(res.json());
    }
    expect(made.map((c) => c.target)).toEqual([
      'hooks.slack.com/services/T0001AAAA/B0002BBBB/…',
      'discord.com/api/webhooks/112233445566778899/…',
      'prod-12.westeurope.logic.azure.com/…',
      'hooks.example.org/…',
    ]);
    // Only the generic webhook has a signing secret, in Standard Webhooks' format, shown once.
    expect(made.map((c) => c.signingSecret === undefined)).toEqual([true, true, true, false]);
    const signingSecret = made[3].signingSecret as string;
    expect(signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(made[0]).toEqual({
      id: expect.any(String),
      projectId: me.projectId,
      kind: 'slack',
      name: 'slack channel',
      target: 'hooks.slack.com/services/T0001AAAA/B0002BBBB/…',
      rules: RULES,
      thread_id: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    const listed = await list();
    expect(listed.statusCode).toBe(200);
    expect(listed.json().channels.map((c: { kind: string }) => c.kind)).toEqual([
      'slack',
      'discord',
      'teams',
      'webhook',
    ]);
    const secrets = [SLACK_SECRET, DISCORD_TOKEN, TEAMS_SIG, 'recEIVERsecret42', signingSecret];
    const stored = JSON.stringify(await rows());
    for (const secret of secrets) {
      expect(listed.body).not.toContain(secret);
      // Sealed at rest (SECRETS_KEY): the database holds ciphertext only.
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(secret.slice(6, 30));
    }
  });

  it.each([
    ['slack', 'https://hooks.slack.com.evil.test/services/T1/B1/x'],
    ['slack', 'http://hooks.slack.com/services/T1/B1/x'],
    ['slack', 'https://hooks.slack.com:8443/services/T1/B1/x'],
    ['discord', 'https://discord.evil.test/api/webhooks/1/x'],
    ['discord', SLACK_URL],
    ['teams', 'https://logic.azure.com.evil.test/workflows/x'],
    ['teams', 'http://prod-1.westus.logic.azure.com/workflows/x'],
    ['webhook', 'http://hooks.example.org/ci'],
    ['webhook', 'https://127.0.0.1/hook'],
    ['webhook', 'https://10.0.0.8/hook'],
    ['webhook', 'https://[::1]/hook'],
    ['webhook', 'https://169.254.169.254/latest/meta-data'],
    ['webhook', 'https://[fd00::1]/hook'],
    ['webhook', 'ftp://hooks.example.org/ci'],
  ])('refuses a %s channel at %s (400 naming the url), storing nothing', async (kind, url) => {
    const res = await create({ kind, url });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 400,
      body: { error: OwnError.channelUrl },
    });
    expect(await rows()).toEqual([]);
  });

  it('refuses malformed rules and unknown kinds with 400 naming the field', async () => {
    for (const [body, field] of [
      [{ kind: 'irc', url: SLACK_URL }, 'kind'],
      [{ kind: 'slack', url: SLACK_URL, rules: { notify: [] } }, 'rules'],
      [{ kind: 'slack', url: SLACK_URL, rules: { notify: ['everything'] } }, 'rules'],
      [{ kind: 'slack', url: SLACK_URL, rules: { ...RULES, mention: '@everyone' } }, 'rules'],
      [{ kind: 'slack', url: SLACK_URL, name: '' }, 'name'],
    ] as const) {
      const res = await create(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toBe(SpecError.invalidBody);
      expect(JSON.stringify(res.json().issues)).toContain(field);
    }
    expect(await rows()).toEqual([]);
  });

  it('updates the name, rules and URL; deletes; another account sees none of it', async () => {
    const made = (await create({ kind: 'slack', url: SLACK_URL })).json();
    const other = await server.account();

    // Another account: its key cannot list, change, test or delete the channel, nor add one.
    expect((await list(me.projectId, other.apiKey)).statusCode).toBe(403);
    expect((await create({ kind: 'slack', url: SLACK_URL }, other.apiKey)).statusCode).toBe(403);
    for (const path of [Paths.updateChannel, Paths.deleteChannel, Paths.testChannel]) {
      const res = await call(path, { channelId: made.id, name: 'mine now' }, other.apiKey);
      if (path !== Paths.updateChannel) {
        const again = await call(path, { channelId: made.id }, other.apiKey);
        expect({ status: again.statusCode, body: again.json() }).toEqual({
          status: 404,
          body: { error: OwnError.channelNotFound },
        });
      } else {
        expect(res.statusCode).toBe(404);
      }
    }
    expect((await list()).json().channels[0].name).toBe('ci');

    const rules = { notify: ['builds'], eventTypes: ['build'], mention: '<!subteam^S0123>' };
    const newUrl = 'https://hooks.slack.com/services/T0001AAAA/B0003CCCC/anotherSecret99';
    const updated = await call(Paths.updateChannel, {
      channelId: made.id,
      name: 'builds',
      rules,
      url: newUrl,
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({
      name: 'builds',
      rules,
      target: 'hooks.slack.com/services/T0001AAAA/B0003CCCC/…',
    });
    expect(JSON.stringify(await rows())).not.toContain('anotherSecret99');

    // A URL of another platform is refused for a Slack channel, and changes nothing.
    const wrong = await call(Paths.updateChannel, { channelId: made.id, url: DISCORD_URL });
    expect(wrong.statusCode).toBe(400);
    expect((await list()).json().channels[0].target).toBe(
      'hooks.slack.com/services/T0001AAAA/B0003CCCC/…',
    );

    const deleted = await call(Paths.deleteChannel, { channelId: made.id });
    expect({ status: deleted.statusCode, body: deleted.json() }).toEqual({
      status: 200,
      body: { success: true },
    });
    expect((await list()).json()).toEqual({ channels: [] });
    expect(await rows()).toEqual([]);
    expect((await call(Paths.deleteChannel, { channelId: made.id })).statusCode).toBe(404);
  });

  it('an ingest key manages no channels', async () => {
    const key = await server.call('POST', Paths.createApiKey, {
      key: me.apiKey,
      body: { label: 'bot', scope: 'ingest' },
    });
    const ingestKey = key.json().apiKey as string;
    const res = await create({ kind: 'slack', url: SLACK_URL }, ingestKey);
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 403,
      body: { error: OwnError.ingestOnly },
    });
  });

  it('holds at most 20 channels per project (409 past them)', async () => {
    for (let i = 0; i < 20; i++) {
      expect((await create({ kind: 'slack', url: SLACK_URL, name: `c${i}` })).statusCode).toBe(201);
    }
    const res = await create({ kind: 'slack', url: SLACK_URL, name: 'one more' });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 409,
      body: { error: OwnError.tooManyChannels },
    });
    expect(await rows()).toHaveLength(20);
  });
});
