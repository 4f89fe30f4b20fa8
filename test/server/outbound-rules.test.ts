import { describe, expect, it } from 'vitest';
import { parseDiscordWebhookUrl } from '../../contract/discord-webhook.js';
import { parseRetryAfter } from '../../contract/retry.js';
import { ConfigError, loadConfig } from '../../server/config.js';
import type { ChatNotificationJob } from '../../server/outbox/outbox-jobs.js';
import { retryDelayMs } from '../../server/outbox/retry-schedule.js';
import { brevoRetryAfter } from '../../server/providers/brevo.js';
import {
  buildDiscordMessage,
  DEFAULT_COLOR,
  DiscordLimits,
  discordRetryAfter,
} from '../../server/providers/discord.js';

describe('retryDelayMs', () => {
  const policy = { baseMs: 1000, capMs: 60_000, maxAttempts: 10 };

  it('doubles per attempt, with 50-100% jitter, up to the cap', () => {
    expect(retryDelayMs(1, policy, undefined, () => 0)).toBe(500);
    expect(retryDelayMs(1, policy, undefined, () => 1)).toBe(1000);
    expect(retryDelayMs(2, policy, undefined, () => 1)).toBe(2000);
    expect(retryDelayMs(4, policy, undefined, () => 1)).toBe(8000);
    expect(retryDelayMs(20, policy, undefined, () => 1)).toBe(60_000);
  });

  it('waits what the service asked for, within the cap', () => {
    expect(retryDelayMs(5, policy, 1234)).toBe(1234);
    expect(retryDelayMs(1, policy, 10 * 60_000)).toBe(60_000);
  });
});

describe('how long a 429 asks to wait', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['3', 3000],
    ['0.25', 250],
    ['Thu, 01 Jan 2026 00:00:05 GMT', 5000],
    [undefined, undefined],
    ['soon', undefined],
  ])('Retry-After %j -> %s', (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });

  it.each([
    [{ retry_after: 1.5, global: false }, 1500],
    [{ retry_after: -1 }, undefined],
    [undefined, undefined],
  ])("Discord's body %j -> %s", (body, expected) => {
    expect(discordRetryAfter(body)).toBe(expected);
  });

  it.each([
    [{ 'x-sib-ratelimit-reset': '7' }, 7000],
    [{}, undefined],
  ])("Brevo's headers %j -> %s", (headers, expected) => {
    expect(brevoRetryAfter(headers)).toBe(expected);
  });
});

describe('buildDiscordMessage', () => {
  const job: ChatNotificationJob = {
    kind: 'chat-notification',
    webhook: { path: '/api/webhooks/1/t', webhookId: '1' },
    title: 'Build',
    description: null,
    color: null,
    projectId: 'p1',
    projectName: 'web',
    eventType: 'build',
    eventCreatedAt: '2026-01-01T00:00:00.000Z',
  };

  it('falls back to blurple and leaves out an empty description', () => {
    const [embed] = buildDiscordMessage(job).embeds;
    expect(embed.color).toBe(DEFAULT_COLOR);
    expect(embed).not.toHaveProperty('description');
    expect(buildDiscordMessage({ ...job, description: '  ' }).embeds[0]).not.toHaveProperty(
      'description',
    );
  });

  it('truncates with an ellipsis to Discord’s limits, never failing', () => {
    const [embed] = buildDiscordMessage({
      ...job,
      title: 't'.repeat(1000),
      description: 'd'.repeat(10_000),
      eventType: 'e'.repeat(2000),
      projectName: 'n'.repeat(2000),
    }).embeds;
    expect(embed.title).toHaveLength(DiscordLimits.title);
    expect(embed.title.endsWith('…')).toBe(true);
    expect(embed.description?.length).toBeLessThanOrEqual(DiscordLimits.description);
    expect(embed.description?.endsWith('…')).toBe(true);
    for (const field of embed.fields)
      expect(field.value.length).toBeLessThanOrEqual(DiscordLimits.fieldValue);
    const total =
      embed.title.length +
      (embed.description?.length ?? 0) +
      embed.footer.text.length +
      embed.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
    expect(total).toBeLessThanOrEqual(DiscordLimits.total);
  });
});

describe('parseDiscordWebhookUrl', () => {
  const id = '123456789012345678';
  const ok = [
    `https://discord.com/api/webhooks/${id}/abc_DEF-123`,
    `https://ptb.discord.com/api/webhooks/${id}/abc`,
    `https://canary.discord.com/api/v10/webhooks/${id}/abc`,
    `https://discordapp.com/api/webhooks/${id}/abc`,
    `https://DISCORD.com/api/webhooks/${id}/abc?wait=true`,
    `https://discord.com/api/webhooks/${id}/abc?thread_id=99&wait=false`,
    `https://discord.com:443/api/webhooks/${id}/abc`,
  ];
  it.each(ok)('accepts %s', (url) => {
    expect(parseDiscordWebhookUrl(url)).toMatchObject({ webhookId: id });
  });

  const bad = [
    `http://discord.com/api/webhooks/${id}/abc`,
    `https://discord.com.evil.example/api/webhooks/${id}/abc`,
    `https://evil.example/api/webhooks/${id}/abc`,
    `https://discord.com:8443/api/webhooks/${id}/abc`,
    `https://user:pass@discord.com/api/webhooks/${id}/abc`,
    `https://discord.com/api/webhooks/${id}/abc/slack`,
    `https://discord.com/api/webhooks/${id}/abc/github`,
    `https://discord.com/api/webhooks/not-digits/abc`,
    `https://discord.com/api/webhooks/${id}/`,
    `https://discord.com/api/webhooks/${id}/abc%2F..%2F..`,
    `https://discord.com/api/webhooks/${id}/abc?thread_id=x`,
    `https://discord.com/api/webhooks/${id}/abc?thread_id=1&thread_id=2`,
    `https://discord.com/api/webhooks/${id}/abc?with_components=true`,
    `https://discord.com/api/webhooks/${id}/abc?wait=maybe`,
    `https://discord.com/api/webhooks/${id}/abc#frag`,
    `https://discord.com/../api/webhooks/${id}/abc/..`,
    `https://127.0.0.1/api/webhooks/${id}/abc`,
    `//discord.com/api/webhooks/${id}/abc`,
    'not a url',
  ];
  it.each(bad)('refuses %s', (url) => {
    expect(parseDiscordWebhookUrl(url)).toBeUndefined();
  });
});

describe('provider configuration', () => {
  it.each([
    [{ FORWARDING_PROVIDER: 'improvmx' }, 'IMPROVMX_API_KEY'],
    [{ CONTACTS_PROVIDER: 'brevo' }, 'BREVO_API_KEY'],
    [{ FORWARDING_PROVIDER: 'mailgun' }, 'FORWARDING_PROVIDER'],
    [{ DISCORD_API_ORIGIN: 'https://discord.com/api' }, 'DISCORD_API_ORIGIN'],
    [{ IMPROVMX_API_URL: 'ftp://x' }, 'IMPROVMX_API_URL'],
  ])('%j fails start-up naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (error) {
      expect((error as ConfigError).variable).toBe(variable);
    }
  });

  it('IMPROVMX_DOMAIN defaults to MAIL_DOMAIN', () => {
    const config = loadConfig({
      FORWARDING_PROVIDER: 'improvmx',
      IMPROVMX_API_KEY: 'k',
      MAIL_DOMAIN: 'Mail.Example.org',
    });
    expect(config.forwarding).toEqual({
      provider: 'improvmx',
      apiKey: 'k',
      domain: 'mail.example.org',
      apiUrl: 'https://api.improvmx.com/v3',
    });
  });
});
