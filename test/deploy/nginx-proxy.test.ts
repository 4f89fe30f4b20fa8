import { type ChildProcess, spawn } from 'node:child_process';
import { lookup as dnsLookup } from 'node:dns';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Paths } from '../../contract/paths.js';
import { buildApp } from '../../server/app.js';
import { runCli } from '../helpers/cli.js';
import { capture } from '../helpers/process.js';
import { TEST_CA } from '../helpers/proxy.js';
import { ADMIN_TOKEN, testConfig } from '../helpers/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The documented nginx configuration (deploy/nginx/ci-stats.conf, docs/operations.md) in front of
 * the real server started with BASE_PATH=/ci-stats and TRUST_PROXY: nginx of the machine, run
 * with a prefix of its own (no root needed; as root its workers run as nobody), TLS ended by
 * nginx (a certificate for stats.test). Through it: the dashboard's sign-in, a project page, an
 * ingest by the CLI with a base URL holding the path, and the client's address as the server
 * counts it.
 */

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));
const BASE = '/ci-stats';
const SNIPPET = resolve('deploy/nginx/ci-stats.conf');

// In CI nginx must be there (.ci/run installs it): only elsewhere may the test be skipped.
if (NGINX === undefined && process.env.CI) {
  throw new Error(
    'nginx is not installed, but CI is set: .ci/run installs it (apt-get install nginx)',
  );
}
if (NGINX === undefined) {
  console.log('nginx is not installed (apt-get install nginx): the reverse-proxy test is skipped.');
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

let database: TestDatabase;
let app: FastifyInstance;
let nginx: ChildProcess;
let nginxOutput: () => string;
let tlsPort: number;
let plainPort: number;
let apiKey: string;
let projectId: string;

/** `stats.test` is 127.0.0.1 for this client only; its certificate is the test CA's. */
const tlsAgent = new Agent({
  connect: {
    ca: readFileSync(TEST_CA),
    lookup: (host, options, callback) =>
      host === 'stats.test'
        ? options.all
          ? callback(null, [{ address: '127.0.0.1', family: 4 }])
          : callback(null, '127.0.0.1', 4)
        : dnsLookup(host, options, callback),
  },
});

/** A client from `address` (any of 127.0.0.0/8), plain HTTP to the proxy. */
const fromAddress = (address: string) => new Agent({ localAddress: address });

beforeAll(async () => {
  if (NGINX === undefined) return;
  database = await createTestDatabase();
  app = await buildApp(
    testConfig(database, {
      BASE_PATH: BASE,
      TRUST_PROXY: '127.0.0.1',
      RATE_LIMIT_BAD_KEYS_PER_MINUTE: '3',
    }),
  );
  const upstream = new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port;
  const admin = async (url: string, body: unknown) =>
    (
      await app.inject({
        method: 'POST',
        url: `${BASE}${url}`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      })
    ).json();
  const account = await admin('/admin/accounts', { label: 'nginx' });
  apiKey = account.apiKey;
  projectId = (await admin(`/admin/accounts/${account.accountId}/projects`, { name: 'web' })).id;

  // A private prefix: pid, logs and temporary files in the test's directory, nothing in /var.
  const prefix = join(database.dir, 'nginx');
  mkdirSync(join(prefix, 'logs'), { recursive: true });
  // As root, nginx's workers run as nobody: they must reach their temporary directories.
  chmodSync(database.dir, 0o755);
  chmodSync(prefix, 0o755);
  [tlsPort, plainPort] = [await freePort(), await freePort()];
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log warn;
events { worker_connections 64; }
http {
  access_log ${prefix}/logs/access.log;
  client_body_temp_path ${prefix}/client_body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  upstream ci_stats { server 127.0.0.1:${upstream}; keepalive 16; }
  server {
    listen 127.0.0.1:${tlsPort} ssl;
    listen 127.0.0.1:${plainPort};
    server_name stats.test;
    ssl_certificate ${resolve(TEST_CA)};
    ssl_certificate_key ${resolve('test/fixtures/tls/stats.test.key')};
    include ${SNIPPET};
  }
}
`,
  );
  nginx = spawn(NGINX, ['-p', prefix, '-e', `${prefix}/logs/error.log`, '-c', conf], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  nginxOutput = capture(nginx);
  // Ready when it answers through to the server.
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(`http://127.0.0.1:${plainPort}${BASE}/healthz`);
      if (res.status === 200) break;
    } catch {}
    if (attempt > 100 || nginx.exitCode !== null) {
      throw new Error(`nginx did not start: ${nginxOutput()}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}, 60_000);

afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    const exited = new Promise((done) => nginx.once('exit', done));
    nginx.kill('SIGQUIT');
    await exited;
  }
  await app?.close();
  await database?.drop();
});

/** A browser's requests: cookies kept, redirects seen, not followed. */
class Browser {
  readonly cookies = new Map<string, string>();
  constructor(private readonly origin: string) {}

  async request(path: string, form?: Record<string, string>) {
    const res = await fetch(`${this.origin}${path}`, {
      dispatcher: tlsAgent,
      redirect: 'manual',
      method: form ? 'POST' : 'GET',
      headers: {
        accept: 'text/html',
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    const setCookies = res.headers.getSetCookie();
    for (const cookie of setCookies) {
      const [pair] = cookie.split(';');
      const [name, value] = (pair as string).split('=') as [string, string];
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(cookie)) {
        this.cookies.delete(name);
      } else this.cookies.set(name, value);
    }
    return {
      status: res.status,
      location: res.headers.get('location'),
      setCookies,
      body: await res.text(),
    };
  }
}

describe.skipIf(NGINX === undefined)(
  'nginx in front, BASE_PATH=/ci-stats (deploy/nginx/ci-stats.conf)',
  () => {
    it('is the configuration docs/operations.md shows', () => {
      const docs = readFileSync('docs/operations.md', 'utf8');
      expect(docs).toContain('deploy/nginx/ci-stats.conf');
      // The page shows the file as it is, so what a reader copies is what this test runs.
      expect(docs).toContain(readFileSync(SNIPPET, 'utf8').trim());
    });

    it('signs in on the dashboard over HTTPS and shows a project page, all under /ci-stats', async () => {
      const browser = new Browser(`https://stats.test:${tlsPort}`);
      const form = await browser.request(`${BASE}/dashboard/sign-in`);
      expect(form.status).toBe(200);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] as string;
      expect(form.body).toContain(`action="${BASE}/dashboard/sign-in"`);
      const signedIn = await browser.request(`${BASE}/dashboard/sign-in`, {
        _csrf: csrf,
        api_key: apiKey,
      });
      expect({ status: signedIn.status, location: signedIn.location }).toEqual({
        status: 303,
        location: `${BASE}/dashboard`,
      });
      // X-Forwarded-Proto https, believed through TRUST_PROXY: a Secure cookie for the base path.
      expect(signedIn.setCookies.find((c) => c.startsWith('__Secure-cistats_session='))).toMatch(
        /Path=\/ci-stats;.*Secure/,
      );
      const overview = await browser.request(`${BASE}/dashboard`);
      expect(overview.status).toBe(200);
      expect(overview.body).toContain(`href="${BASE}/dashboard/projects"`);
      const project = await browser.request(`${BASE}/dashboard/projects/${projectId}`);
      expect(project.status).toBe(200);
      expect(project.body).toContain('<h1>web</h1>');
      const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(project.body)?.[1] as string;
      expect(stylesheet).toMatch(/^\/ci-stats\/assets\//);
      expect((await browser.request(stylesheet)).status).toBe(200);
      // Outside the base path, nginx has nothing to say about it (its own 404, not the server's).
      expect((await browser.request('/dashboard')).status).toBe(404);
    });

    it('the CLI with a base URL holding the path ingests through the proxy', async () => {
      const run = await runCli(
        ['report', '--event-type', 'deploy', '--status', 'success', '--no-context'],
        {
          CI_STATS_API_KEY: apiKey,
          CI_STATS_BASE_URL: `http://127.0.0.1:${plainPort}${BASE}`,
          CI_STATS_PROJECT_ID: projectId,
        },
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const id = /event stored \((\S+)\)/.exec(run.stdout)?.[1];
      expect(id).toBeDefined();
      const stored = await fetch(
        `http://127.0.0.1:${plainPort}${BASE}${Paths.getEvents}?${new URLSearchParams({ projectId })}`,
        { headers: { 'x-api-key': apiKey } },
      );
      const { events } = (await stored.json()) as { events: { id: string; eventType: string }[] };
      expect(events.find((event) => event.id === id)).toMatchObject({ eventType: 'deploy' });
    });

    it('counts wrong keys per client address as nginx forwards it, not per proxy', async () => {
      const wrongKey = (address: string) =>
        fetch(`http://127.0.0.1:${plainPort}${BASE}${Paths.getProjects}`, {
          dispatcher: fromAddress(address),
          headers: { 'x-api-key': 'cis_wrong', 'x-forwarded-for': '10.9.9.9' },
        }).then((res) => res.status);
      // Three a minute from 127.0.0.2, then 429; 127.0.0.3, behind the same proxy, is not counted
      // with it (without TRUST_PROXY both would be the proxy's 127.0.0.1). The X-Forwarded-For a
      // client sends is replaced by nginx, so it cannot pick someone else's count.
      expect([
        await wrongKey('127.0.0.2'),
        await wrongKey('127.0.0.2'),
        await wrongKey('127.0.0.2'),
        await wrongKey('127.0.0.2'),
      ]).toEqual([401, 401, 401, 429]);
      expect(await wrongKey('127.0.0.3')).toBe(401);
    });
  },
);
