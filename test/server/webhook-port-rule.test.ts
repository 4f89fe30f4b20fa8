import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parseDiscordWebhookUrl } from '../../contract/discord-webhook.js';

/**
 * Issue 14, defect 10: the webhook URL rule and the docs (docs/decisions.md, E7) say the same
 * about ports. The default
 * `:443` is accepted (it changes nothing: delivery never uses the client's host or port); any
 * other port is refused.
 */
it('the docs state the port rule the parser applies', () => {
  const id = '123456789012345678';
  expect(parseDiscordWebhookUrl(`https://discord.com:443/api/webhooks/${id}/abc`)).toBeDefined();
  expect(parseDiscordWebhookUrl(`https://discord.com:8443/api/webhooks/${id}/abc`)).toBeUndefined();
  expect(parseDiscordWebhookUrl(`https://discord.com:80/api/webhooks/${id}/abc`)).toBeUndefined();
  const decisions = readFileSync('docs/decisions.md', 'utf8').replace(/\s+/g, ' ');
  expect(decisions).toContain('with no port other than the default `:443`');
  expect(decisions).not.toMatch(/discordapp\.com, without port/);
});
