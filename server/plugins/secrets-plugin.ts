import fp from 'fastify-plugin';
import { holdsSealedSecret, sealedPayload } from '../outbox/outbox-jobs.js';
import { type SecretBox, secretBox } from '../outbox/secret-box.js';
import { loadSecretsKey } from '../outbox/secrets-key.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Seals and opens the secrets outbox jobs hold (a webhook's token) while they wait. */
    secrets: SecretBox;
  }
}

/**
 * The key that seals the outbox's secrets (SECRETS_KEY, else on SQLite a key file made at first
 * start: outbox/secrets-key.ts), and what a server without one stored: pending jobs whose token is
 * still in the clear are sealed at start-up, then SQLite's WAL is emptied, so that neither the
 * file (secure_delete zeroes what is overwritten) nor its WAL keeps the clear text.
 */
export const secretsPlugin = fp(
  async (app) => {
    const { storage } = app;
    const key = await loadSecretsKey(app.config, async () => {
      const pending = await storage.outbox.pendingPayloads();
      return pending.filter((job) => holdsSealedSecret(job.payload)).length;
    }).catch(async (error: unknown) => {
      // The app will not start: nothing else closes the database.
      await storage.close();
      throw error;
    });
    const secrets = secretBox(key);
    app.decorate('secrets', secrets);
    if (key === undefined) return;
    let sealed = 0;
    for (const { id, payload } of await storage.outbox.pendingPayloads()) {
      const replaced = sealedPayload(payload, secrets);
      if (replaced === undefined) continue;
      await storage.outbox.replacePayload(id, replaced);
      sealed++;
    }
    if (sealed > 0) {
      await storage.truncateLog();
      app.logger.info({ jobs: sealed }, 'sealed the webhook tokens of pending notifications');
    }
  },
  { name: 'secrets', dependencies: ['storage'] },
);
