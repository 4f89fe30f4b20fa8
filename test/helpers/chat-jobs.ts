import { expect } from 'vitest';
import type { ChatNotificationJob } from '../../server/outbox/outbox-jobs.js';
import type { TestAccount, TestServer } from './server.js';

/** A chat notification as the outbox stores it, its webhook `path` as given (clear or sealed). */
export const chatJob = (
  path: string,
  webhookId: string,
  title = 'Deployed',
): ChatNotificationJob => ({
  kind: 'chat-notification',
  webhook: { path, webhookId },
  title,
  description: null,
  color: null,
  projectId: 'p',
  projectName: 'P',
  eventType: 'deploy',
  eventCreatedAt: new Date().toISOString(),
});

/** E7 with a chatWebhook to `webhooks/<webhookId>/<token>`: acknowledged (200). */
export async function notifyWebhook(
  server: TestServer,
  me: TestAccount,
  webhookId: string,
  token: string,
): Promise<void> {
  const res = await server.call('POST', '/stats/ingest-events', {
    key: me.apiKey,
    body: {
      projectId: me.projectId,
      eventType: 'deploy',
      chatWebhook: { url: `https://discord.com/api/webhooks/${webhookId}/${token}`, title: 'x' },
    },
  });
  expect(res.statusCode).toBe(200);
}
