import { createHmac } from 'node:crypto';

/**
 * The signature of the Standard Webhooks specification (standardwebhooks.com): HMAC-SHA256,
 * keyed with the base64 part of the `whsec_` secret, over `<webhook-id>.<webhook-timestamp>.<body>`,
 * sent as `v1,<base64>` in `webhook-signature`. Receivers verify it with the specification's
 * libraries (test/server/channel-delivery.test.ts and channel-run-identity.test.ts do, with the
 * `standardwebhooks` package). `id` is a run's one id for all its reports (issue 30): each is
 * signed when it leaves, over its own body and timestamp.
 */
export function standardWebhookHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key)
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}
