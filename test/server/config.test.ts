import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import { run, SERVER_ENTRY } from '../helpers/process.js';
import { tempDir } from '../helpers/server.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      databasePath: './data/stats.db',
      databaseUrl: undefined,
      replica: { url: undefined, maxLagSeconds: 5 },
      mailDomain: 'localhost',
      adminToken: undefined,
      backup: undefined,
      secretsKey: undefined,
      logLevel: 'info',
      bodyLimit: 1048576,
      requestTimeoutMs: 30000,
      headersTimeoutMs: 10000,
      rateLimits: {
        ingestPerMinute: 6000,
        otherPerMinute: 1200,
        ingestBurst: 1000,
        otherBurst: 60,
        otherConcurrency: 2,
        badKeysPerMinute: 600,
      },
      reads: { connections: 4, timeoutMs: 10_000 },
      heavyReads: {
        perProject: 2,
        queue: 8,
        share: {
          perTokenPerMinute: 600,
          tokenBurst: 60,
          perAddressPerMinute: 300,
          addressBurst: 30,
        },
        cacheTtlMs: 5000,
      },
      basePath: '',
      bootstrapApiKey: undefined,
      durability: 'full',
      inlineFlushMaxMs: 3,
      forwarding: { provider: 'none' },
      contacts: { provider: 'none' },
      outbound: {
        discordApiOrigin: 'https://discord.com',
        slackApiOrigin: 'https://slack.com',
        slackWebhookOrigin: 'https://hooks.slack.com',
        teamsWebhookOrigin: undefined,
        webhookAllowedHosts: [],
        timeoutMs: 10000,
        maxAttempts: 15,
        retryBaseMs: 2000,
      },
      slackApp: undefined,
    });
  });

  it('reads the Slack app: both SLACK_CLIENT_ID and SLACK_CLIENT_SECRET, or neither', () => {
    const both = { SLACK_CLIENT_ID: '1234567890.0987654321', SLACK_CLIENT_SECRET: 'abc123def456' };
    expect(loadConfig(both).slackApp).toEqual({
      clientId: '1234567890.0987654321',
      clientSecret: 'abc123def456',
    });
    for (const half of [{ SLACK_CLIENT_ID: both.SLACK_CLIENT_ID }, { SLACK_CLIENT_SECRET: 'x1' }]) {
      expect(() => loadConfig(half), JSON.stringify(half)).toThrow(/go together/);
    }
    expect(() => loadConfig({ ...both, SLACK_CLIENT_ID: 'my-app' })).toThrow(ConfigError);
  });

  it('reads WEBHOOK_ALLOWED_HOSTS as lower-case hosts, and refuses anything but hosts', () => {
    const { outbound } = loadConfig({ WEBHOOK_ALLOWED_HOSTS: 'Hooks.Internal:8443, ci.lan' });
    expect(outbound.webhookAllowedHosts).toEqual(['hooks.internal:8443', 'ci.lan']);
    for (const bad of ['https://ci.lan', 'ci.lan/hook', 'ci lan']) {
      expect(() => loadConfig({ WEBHOOK_ALLOWED_HOSTS: bad }), bad).toThrow(ConfigError);
    }
  });

  it('reads BASE_PATH: unset, empty or / is the root; a path is kept and joined to PUBLIC_URL', () => {
    for (const root of [{}, { BASE_PATH: '' }, { BASE_PATH: '/' }]) {
      expect(loadConfig(root).basePath, JSON.stringify(root)).toBe('');
    }
    expect(loadConfig({ BASE_PATH: '/ci-stats' }).basePath).toBe('/ci-stats');
    expect(loadConfig({ BASE_PATH: '/tools/ci-stats' }).basePath).toBe('/tools/ci-stats');
    // PUBLIC_URL as an origin takes the base path; written with it, it is the same address.
    for (const publicUrl of ['https://ci.example.com', 'https://ci.example.com/ci-stats/']) {
      const config = loadConfig({ BASE_PATH: '/ci-stats', PUBLIC_URL: publicUrl });
      expect(config.publicUrl, publicUrl).toBe('https://ci.example.com/ci-stats');
    }
    // Without a base path PUBLIC_URL stays as it is written, as before BASE_PATH existed.
    expect(loadConfig({ PUBLIC_URL: 'https://ci.example.com/' }).publicUrl).toBe(
      'https://ci.example.com',
    );
    // Another path than BASE_PATH's could only be a mistake: refused, naming PUBLIC_URL.
    const mismatch = () => loadConfig({ BASE_PATH: '/ci-stats', PUBLIC_URL: 'https://x.io/other' });
    expect(mismatch).toThrow(ConfigError);
    expect(mismatch).toThrow(/PUBLIC_URL must be an origin .* or end with BASE_PATH/);
  });

  it('reads INLINE_FLUSH_MAX_MS, 0 included (every flush off the event loop)', () => {
    expect(loadConfig({ INLINE_FLUSH_MAX_MS: '0' }).inlineFlushMaxMs).toBe(0);
    expect(loadConfig({ INLINE_FLUSH_MAX_MS: '1000' }).inlineFlushMaxMs).toBe(1000);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ ADMIN_TOKEN: '', PORT: '' })).toMatchObject({
      adminToken: undefined,
      port: 3000,
    });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '1.5'],
    ['LOG_LEVEL', 'loud'],
    ['BODY_LIMIT', '10'],
    ['MAIL_DOMAIN', 'not a domain'],
    ['DATABASE_PATH', ':memory:'],
    ['DATABASE_URL', 'mysql://root@127.0.0.1/stats'],
    ['DATABASE_URL', 'not a url'],
    ['DATABASE_URL', 'postgres://'],
    ['ADMIN_TOKEN', 'has space'],
    ['BOOTSTRAP_API_KEY', 'bad\tkey'],
    ['SECRETS_KEY', 'x'.repeat(31)],
    ['SECRETS_KEY', `${'x'.repeat(32)} with spaces`],
    ['REQUEST_TIMEOUT_MS', '50'],
    ['HEADERS_TIMEOUT_MS', '40000'],
    ['RATE_LIMIT_INGEST_PER_MINUTE', '-1'],
    ['RATE_LIMIT_OTHER_PER_MINUTE', 'lots'],
    ['RATE_LIMIT_INGEST_BURST', '0'],
    ['RATE_LIMIT_OTHER_BURST', '1.5'],
    ['RATE_LIMIT_OTHER_CONCURRENCY', '-1'],
    ['RATE_LIMIT_BAD_KEYS_PER_MINUTE', 'many'],
    ['INLINE_FLUSH_MAX_MS', '-1'],
    ['INLINE_FLUSH_MAX_MS', '1001'],
    ['INLINE_FLUSH_MAX_MS', '0.5'],
    ['BASE_PATH', 'ci-stats'],
    ['BASE_PATH', '/ci-stats/'],
    ['BASE_PATH', '/ci/../admin'],
    ['BASE_PATH', '/ci/./stats'],
    ['BASE_PATH', '//ci-stats'],
    ['BASE_PATH', '/ci stats'],
    ['BASE_PATH', '/ci?x=1'],
  ])('%s=%j is refused, naming the variable', (variable, value) => {
    const attempt = () => loadConfig({ [variable]: value });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      expect((error as ConfigError).variable).toBe(variable);
      expect((error as ConfigError).message).toContain(variable);
      // Secrets are never echoed back.
      if (variable.endsWith('TOKEN') || variable.endsWith('KEY')) {
        expect((error as ConfigError).message).not.toContain(value);
      }
    }
  });
});

describe('DATABASE_URL', () => {
  it('selects PostgreSQL (postgres:// or postgresql://)', () => {
    for (const url of ['postgres://ci:secret@db.internal:5432/stats', 'postgresql://db/stats']) {
      expect(loadConfig({ DATABASE_URL: url })).toMatchObject({ databaseUrl: url });
    }
  });

  it('set with DATABASE_PATH is refused, naming both and echoing neither', () => {
    const url = 'postgres://ci:secret-password@db.internal/stats';
    const attempt = () => loadConfig({ DATABASE_URL: url, DATABASE_PATH: '/var/lib/stats.db' });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      expect((error as ConfigError).message).toMatch(/DATABASE_URL.*DATABASE_PATH/);
      expect((error as ConfigError).message).not.toContain('secret-password');
      expect((error as ConfigError).message).not.toContain('/var/lib');
    }
    // Either alone is fine.
    expect(() => loadConfig({ DATABASE_URL: url })).not.toThrow();
    expect(() => loadConfig({ DATABASE_PATH: '/var/lib/stats.db' })).not.toThrow();
  });
});

describe('DATABASE_REPLICA_URL', () => {
  const primary = 'postgres://ci@db.internal/stats';
  const replica = 'postgres://ci:replica-secret@replica.internal/stats';

  it('names a read replica of DATABASE_URL, with REPLICA_MAX_LAG_SECONDS', () => {
    expect(loadConfig({ DATABASE_URL: primary, DATABASE_REPLICA_URL: replica }).replica).toEqual({
      url: replica,
      maxLagSeconds: 5,
    });
    const config = loadConfig({
      DATABASE_URL: primary,
      DATABASE_REPLICA_URL: replica,
      REPLICA_MAX_LAG_SECONDS: '30',
    });
    expect(config.replica.maxLagSeconds).toBe(30);
    for (const lag of ['0', '1.5', 'x', '3601']) {
      expect(
        () => loadConfig({ DATABASE_URL: primary, REPLICA_MAX_LAG_SECONDS: lag }),
        lag,
      ).toThrow(/REPLICA_MAX_LAG_SECONDS/);
    }
  });

  it('is refused without DATABASE_URL (SQLite has no replica) or as another URL, echoing nothing', () => {
    for (const env of [
      { DATABASE_REPLICA_URL: replica },
      { DATABASE_URL: primary, DATABASE_REPLICA_URL: 'mysql://ci:replica-secret@replica/stats' },
    ]) {
      const attempt = () => loadConfig(env);
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(/DATABASE_REPLICA_URL/);
      expect(attempt).not.toThrow(/replica-secret/);
    }
  });
});

describe('start-up', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['PORT', 'nope'],
    ['LOG_LEVEL', 'chatty'],
    ['ADMIN_TOKEN', 'two words'],
  ])('a bad %s prints one line naming it and exits 2', async (variable, value) => {
    const dir = tempDir();
    dirs.push(dir);
    const result = await run([SERVER_ENTRY], {
      DATABASE_PATH: join(dir, 'x.db'),
      [variable]: value,
    });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Invalid configuration: ${variable}`));
    expect(result.stdout).toBe('');
  });

  it('DATABASE_URL and DATABASE_PATH both set: one line naming both, exit 2, no database made', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const path = join(dir, 'x.db');
    const result = await run([SERVER_ENTRY], {
      DATABASE_PATH: path,
      // Nothing listens there: the server must stop before trying it.
      DATABASE_URL: 'postgres://root@127.0.0.1:9/stats',
    });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Invalid configuration: DATABASE_URL and DATABASE_PATH are both set/);
    expect(result.stdout).toBe('');
    expect(existsSync(path)).toBe(false);
  });

  it('a database that cannot be reached: one line naming it, exit 1', async () => {
    // Port 9 (discard) refuses at once.
    const result = await run([SERVER_ENTRY], { DATABASE_URL: 'postgres://root@127.0.0.1:9/stats' });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Cannot open the database \(DATABASE_URL\): .*ECONNREFUSED/);
    expect(result.stdout).toBe('');
  });
});
