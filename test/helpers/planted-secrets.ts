import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { FakeService } from './fake-service.js';

/**
 * Issue 22, part 5: a run of the server (a child process, at LOG_LEVEL=debug) that plants every
 * kind of secret it handles, for a test to look for them afterwards in the database's files, its
 * WAL, its backups and the log: API keys (the bootstrap key, one made by the admin API, one by the
 * API, one sent by mistake in a URL), the admin token, a share token (its page and badge fetched),
 * a dashboard session and pre-session, and Discord webhook tokens whose notification was
 * delivered, refused for good, and is still waiting for a retry.
 */

export const ADMIN = `admin-token-PLANTED-${randomBytes(12).toString('hex')}`;
export const BOOTSTRAP = `bootstrap-key-PLANTED-${randomBytes(12).toString('hex')}`;
const WEBHOOK_ID = '123456789012345678';

/** Webhook tokens by what the fake Discord answers them. */
const webhookTokens = {
  delivered: `DELIVERED_${randomBytes(24).toString('hex')}`,
  refused: `REFUSED_${randomBytes(24).toString('hex')}`,
  waiting: `WAITING_${randomBytes(24).toString('hex')}`,
};

/** A Discord that delivers, refuses (404: unknown webhook) or fails for now (500), by token. */
export function plantedDiscord(): FakeService {
  return new FakeService().script((request) => {
    if (request.path.includes(webhookTokens.refused)) return { status: 404 };
    if (request.path.includes(webhookTokens.waiting)) return { status: 500 };
    return { status: 200, body: { id: '1' } };
  });
}

/** The environment of the run: debug logs, the admin token and key, retries out of the way. */
export const plantedEnv = (discord: FakeService): Record<string, string> => ({
  LOG_LEVEL: 'debug',
  ADMIN_TOKEN: ADMIN,
  BOOTSTRAP_API_KEY: BOOTSTRAP,
  DISCORD_API_ORIGIN: discord.origin,
  // The refused-for-now notification waits an hour for its retry: it stays pending.
  OUTBOX_RETRY_BASE_MS: String(60 * 60 * 1000),
});

/** The run against the server at `url`; every secret it planted. */
export async function plantSecrets(url: string, discord: FakeService): Promise<string[]> {
  const call = async (method: string, path: string, body?: unknown, key = BOOTSTRAP) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        'x-api-key': key,
        authorization: `Bearer ${ADMIN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return (res.status === 204 ? {} : await res.json()) as Record<string, unknown>;
  };

  const { projects } = await call('GET', '/stats/get-projects');
  const projectId = (projects as { id: string }[])[0]?.id as string;
  const admins = await call('POST', '/admin/accounts', { label: 'planted' });
  const made = await call('POST', '/account/create-api-key', { label: 'planted' });
  // A key sent where it does not belong (a query): the request is answered, the log keeps no key.
  await call('GET', `/stats/get-projects?apiKey=${made.apiKey as string}`);

  for (const token of Object.values(webhookTokens)) {
    const webhook = `https://discord.com/api/webhooks/${WEBHOOK_ID}/${token}`;
    await call('POST', '/stats/ingest-events', {
      projectId,
      eventType: 'deploy',
      chatWebhook: { url: webhook, title: 'Deployed' },
    });
  }
  await discord.waitFor(3);
  // Delivered and refused for good are finished; the third waits for its retry.
  await expect
    .poll(async () => {
      const { events } = await call('GET', `/stats/get-events?projectId=${projectId}`);
      return (events as { notification: { status: string; attempts: number } }[])
        .map(({ notification }) => `${notification.status} ${notification.attempts}`)
        .sort();
    })
    .toEqual(['delivered 1', 'failed 1', 'pending 1']);

  const share = await call('POST', '/stats/create-share-link', { projectId });
  for (const path of ['', '?range=7d&branch=main', '/badge/status.svg']) {
    expect((await fetch(`${url}/share/${share.token as string}${path}`)).status).toBe(200);
  }

  // The dashboard: a pre-session, then a session, used for a page.
  const signInPage = await fetch(`${url}/dashboard/sign-in`);
  const preSession = cookieOf(signInPage, 'cistats_presession');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await signInPage.text())?.[1] ?? '';
  const signedIn = await fetch(`${url}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: `cistats_presession=${preSession}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ _csrf: csrf, api_key: BOOTSTRAP }).toString(),
  });
  expect(signedIn.status).toBe(303);
  const session = cookieOf(signedIn, 'cistats_session');
  const page = await fetch(`${url}/dashboard/account`, {
    headers: { cookie: `cistats_session=${session}` },
  });
  expect(page.status).toBe(200);

  return [
    BOOTSTRAP,
    ADMIN,
    admins.apiKey as string,
    made.apiKey as string,
    share.token as string,
    session,
    preSession,
    ...Object.values(webhookTokens),
  ];
}

function cookieOf(res: Response, name: string): string {
  const line = res.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
  const value = line?.split(';')[0]?.slice(name.length + 1);
  expect(value, `${name} cookie`).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return value as string;
}

/**
 * The planted secrets a text holds: each looked for whole and by a distinctive part of its middle
 * (as `strings` and `grep` would find it), past the first characters some are shown by (a key's
 * prefix is stored and listed by design).
 */
export function secretsIn(text: Buffer | string, secrets: readonly string[]): string[] {
  const haystack = typeof text === 'string' ? Buffer.from(text) : text;
  return secrets.filter(
    (secret) => haystack.includes(secret) || haystack.includes(secret.slice(16, 40)),
  );
}
