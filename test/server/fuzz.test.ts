import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Areas, HostedAreas, Paths } from '../../contract/paths.js';
import { VerdictPaths } from '../../contract/verdicts.js';
import { BACKGROUND_ROWS, type DatabaseReader, openReader } from '../helpers/database.js';
import {
  ADMIN_TOKEN,
  startTestServer,
  type TestAccount,
  type TestServer,
} from '../helpers/server.js';

/**
 * Issue 14: a seeded, time-bounded fuzz of every endpoint with malformed requests: raw bytes,
 * broken and hostile JSON (deep nesting, lone surrogates, numbers JSON.parse would change), wrong
 * types for every known field, odd content types, query strings and Idempotency-Keys. Every
 * answer is JSON with an `error` string when it is not a 2xx, never a 5xx, and a refused request
 * changes nothing in the database.
 *
 * A third part, over TCP, adds what only the transport sees: a bad percent-encoding in the path,
 * no Host header, CONNECT, a wrong or unknown method (405 and 400). Kept out: HEAD (its answers
 * have no body, by HTTP's rules), trailing bytes after a body (two answers on one connection:
 * http.test.ts), slow bodies (transport.test.ts) and rate limits (rate-limits.test.ts).
 */

const SEED = 14;
/** Each part sends at least its least number of requests, then more while its budget lasts. */
const RUNS = { least: 1_000, most: 5_000 };
const RAW_RUNS = { least: 500, most: 1_500 };
const TIME_LIMIT_MS = 30_000;
/**
 * The in-process run's budget for its requests beyond the least: on a slow machine with
 * PostgreSQL (two judging catch-ups and two reads of the whole database per request) 30 s gave
 * 945 in all (CI, 27 Nov).
 */
const INJECT_TIME_LIMIT_MS = 60_000;

/**
 * Runs `property` on `runs.least` generated values whatever the time they take, then on up to
 * `runs.most` in all while `budgetMs` from the start lasts (a second seed, so no value repeats
 * the first run's order). A slow or loaded machine (CI sending 370 raw requests in 30 s while other
 * files ran) still checks the least number; a fast one checks more.
 */
async function fuzz<T>(
  property: fc.IAsyncProperty<T>,
  seed: number,
  runs: { least: number; most: number },
  budgetMs: number,
): Promise<void> {
  const started = Date.now();
  await fc.assert(property, { seed, numRuns: runs.least, endOnFailure: true });
  const left = budgetMs - (Date.now() - started);
  if (left <= 0) return;
  await fc.assert(property, {
    seed: seed + 1_000,
    numRuns: runs.most - runs.least,
    interruptAfterTimeLimit: left,
    endOnFailure: true,
  });
}

let server: TestServer;
let me: TestAccount;
let reader: DatabaseReader;

beforeAll(async () => {
  // One key sends thousands of requests here; its rate limits are tested in rate-limits.test.ts.
  server = await startTestServer({
    RATE_LIMIT_INGEST_PER_MINUTE: '0',
    RATE_LIMIT_OTHER_PER_MINUTE: '0',
    RATE_LIMIT_BAD_KEYS_PER_MINUTE: '0',
  });
  me = await server.account();
  reader = openReader(server.database);
});
afterAll(async () => {
  await reader.close();
  await server.close();
});

/** Every route: method and path (admin ones with a placeholder for their parameter). */
const ROUTES: [string, string][] = [
  ['GET', Paths.forwardingStatus],
  ['POST', Paths.forwardingToggle],
  ['POST', Paths.toggleSiteVisibility],
  ['POST', Paths.updateSiteConfiguration],
  ['GET', Paths.getSiteConfiguration],
  ['GET', Paths.getSiteStatus],
  ['GET', Paths.getThemes],
  ['POST', Paths.updateDisplayName],
  ['GET', Paths.getDisplayName],
  ['GET', Paths.getApiKeys],
  ['POST', Paths.createApiKey],
  ['POST', Paths.revokeApiKey],
  ['GET', Paths.getProjects],
  ['POST', Paths.createProject],
  ['POST', Paths.ingestEvents],
  ['POST', Paths.ingestMetrics],
  ['GET', Paths.getEvents],
  ['GET', Paths.getMetrics],
  ['GET', Paths.getMetricKeys],
  ['GET', Paths.getMetricSeries],
  ['GET', Paths.getBuildSummary],
  ['POST', Paths.createShareLink],
  ['GET', Paths.getShareLinks],
  ['POST', Paths.revokeShareLink],
  ['GET', Paths.health],
  ...Object.values(VerdictPaths).map((path): [string, string] => [
    path.includes('/get-') || path === VerdictPaths.compare ? 'GET' : 'POST',
    path,
  ]),
  ['POST', `${Areas.admin}/accounts`],
  ['POST', `${Areas.admin}/accounts/{id}/keys`],
  ['DELETE', `${Areas.admin}/keys/{id}`],
  ['POST', `${Areas.admin}/accounts/{id}/projects`],
  ['GET', `${Areas.admin}/accounts/{id}/projects`],
];

/** Our path, or the hosted service's alias of it. */
const aliasOf = (path: string): string => {
  for (const [area, hosted] of Object.entries(HostedAreas)) {
    if (path.startsWith(`${area}/`)) return `${hosted}${path.slice(area.length)}`;
  }
  return path;
};

const FIELDS = [
  'projectId',
  'eventType',
  'description',
  'payload',
  'color',
  'chatWebhook',
  'discordWebhook',
  'url',
  'title',
  'enabled',
  'email',
  'display_name',
  'bio',
  'avatar_url',
  'location',
  'mood',
  'theme_id',
  'blocks',
  'type',
  'content',
  'id',
  'name',
  'label',
  'scope',
  'projectIds',
  'keyId',
  'token',
  'key',
  'branch',
  'test',
  'unit',
  'direction',
  'default_branch',
  'default_threshold',
  'chat_webhook',
  'lower_boundary',
  'upper_boundary',
  'min_sample_size',
  'max_sample_size',
  'window_seconds',
  '__proto__',
  'constructor',
];

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const nestedObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** A JSON fragment, raw: valid values, values JSON.parse would change, and broken text. */
const fragment: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  fc.string({ unit: 'binary', maxLength: 40 }).map((text) => JSON.stringify(text)),
  fc.constantFrom(
    '1e309',
    '-1e309',
    '9007199254740993',
    '123456789012345678901234567890',
    '-0',
    '5e-324',
    '"\\ud800"',
    '"\\udfff x"',
    '"x\\u0000y"',
    'null',
    '{}',
    '[]',
    '"https://discord.com/api/webhooks/1/a"',
    '"https://discord.com:443/api/webhooks/123/abc?wait=true"',
    '{"url":"https://discord.com/api/webhooks/123/abc","title":"t"}',
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '[{"type":"link","content":"javascript:alert(1)"}]',
    '"ingest"',
  ),
  fc.integer({ min: 60, max: 70 }).map((levels) => `{"a":${nested(levels)}}`),
  fc.integer({ min: 1_000, max: 120_000 }).map(nested),
  fc.integer({ min: 1_000, max: 120_000 }).map(nestedObject),
  fc.string({ maxLength: 10 }),
);

/** An object body built from known field names, with the caller's real project id at times. */
const objectBody = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...FIELDS), fc.string({ unit: 'binary', maxLength: 8 })),
      fc.oneof(fragment, fc.constant('"{projectId}"')),
    ),
    { maxLength: 6 },
  )
  .map(
    (entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`,
  );

/** Bodies of each endpoint's own shape, each `F` replaced by a fragment. */
const SHAPES: Record<string, string[]> = {
  [Paths.ingestEvents]: [
    '{"projectId":"{projectId}","eventType":"x","payload":F}',
    '{"projectId":"{projectId}","eventType":F}',
    '{"projectId":"{projectId}","eventType":"x","description":F,"color":F}',
    '{"projectId":"{projectId}","eventType":"x","chatWebhook":{"url":F,"title":"t"}}',
    '{"projectId":"{projectId}","eventType":"x","discordWebhook":F,"chatWebhook":F}',
  ],
  [Paths.ingestMetrics]: [
    '{"projectId":"{projectId}","payload":F}',
    '{"payload":F}',
    '{"projectId":F,"payload":{}}',
  ],
  [Paths.updateSiteConfiguration]: [
    '{"bio":F}',
    '{"blocks":[{"type":"text","content":F}]}',
    '{"blocks":F,"avatar_url":F}',
    '{"mood":F,"theme_id":F}',
  ],
  [Paths.updateDisplayName]: ['{"display_name":F}'],
  [Paths.forwardingToggle]: ['{"enabled":true,"email":F}', '{"enabled":F}'],
  [Paths.createProject]: ['{"name":F}'],
  [Paths.createApiKey]: ['{"label":F,"scope":"ingest","projectIds":F}', '{"scope":F}'],
  [Paths.revokeApiKey]: ['{"keyId":F}'],
  [Paths.createShareLink]: ['{"projectId":F}'],
  [Paths.revokeShareLink]: ['{"token":F}'],
};
const ANY_SHAPE = Object.values(SHAPES).flat();

const shaped = (path: string) =>
  fc
    .tuple(fc.constantFrom(...(SHAPES[path] ?? ANY_SHAPE)), fragment, fragment)
    .map(([template, first, second]) => template.replace('F', first).replace('F', second));

const body = (path: string): fc.Arbitrary<string | Buffer | undefined> =>
  fc.oneof(
    { weight: 6, arbitrary: shaped(path) },
    { weight: 3, arbitrary: objectBody },
    { weight: 2, arbitrary: fragment },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)) },
    {
      weight: 1,
      arbitrary: objectBody.chain((text) => fc.nat(text.length).map((cut) => text.slice(0, cut))),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  undefined,
);

const QUERY_NAMES = [
  'projectId',
  'limit',
  'cursor',
  'eventType',
  'status',
  'branch',
  'from',
  'to',
  'key',
  'buckets',
];
const query = fc
  .array(
    fc.tuple(
      fc.constantFrom(...QUERY_NAMES),
      fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.constantFrom('{projectId}', '0', '201', '-1', '1e3', '2026-13-01T00:00:00Z', ''),
      ),
    ),
    { maxLength: 5 },
  )
  .map((pairs) => pairs.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&'));

const request = fc.constantFrom(...ROUTES).chain((route) =>
  fc.record({
    route: fc.constant(route),
    hosted: fc.boolean(),
    body: body(route[1]),
    contentType,
    query,
    key: fc.constantFrom('valid', 'none', 'wrong'),
    idempotencyKey: fc.option(fc.string({ unit: 'binary', maxLength: 20 }), { nil: undefined }),
    param: fc.string({ maxLength: 20 }),
  }),
);

/**
 * Everything the database holds, but the key-use times (written behind any request) and what the
 * server's background work writes from earlier records (BACKGROUND_ROWS: on PostgreSQL the
 * statistics fold runs each second off the commit), read on a connection of its own. Rows are
 * compared as a sorted set: PostgreSQL returns them in no particular order (an update moves a row).
 */
async function stateDigest(): Promise<string> {
  // Judging writes behind the records it judges (like key-use times): settled first.
  await server.app.services.judging.catchUp();
  const hash = createHash('sha256');
  // The background's tables are not read at all (on PostgreSQL, most of the rows after a while).
  for (const row of await reader.everything(['last_used_at'], BACKGROUND_ROWS)) {
    hash.update(row).update('\n');
  }
  return hash.digest('hex');
}

interface Built {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload: string | Buffer | undefined;
}

/** A generated request, with the real key, project id and admin token where it asks for them. */
function build(r: GeneratedRequest): Built {
  const [method, template] = r.route;
  const base = r.hosted ? aliasOf(template) : template;
  const path = base.replace('{id}', encodeURIComponent(r.param) || 'x');
  const withProject = (text: string) => text.replaceAll('{projectId}', me.projectId);
  const url = r.query && method === 'GET' ? `${path}?${withProject(r.query)}` : path;
  const headers: Record<string, string> = {};
  if (path.startsWith(Areas.admin)) {
    if (r.key !== 'none')
      headers.authorization = `Bearer ${r.key === 'valid' ? ADMIN_TOKEN : 'nope'}`;
  } else if (r.key !== 'none') {
    headers['x-api-key'] = r.key === 'valid' ? me.apiKey : 'cis_wrong';
  }
  if (r.contentType !== undefined && r.body !== undefined) headers['content-type'] = r.contentType;
  if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
  const payload = typeof r.body === 'string' ? withProject(r.body) : r.body;
  return { method, url, headers, payload };
}

type GeneratedRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

interface Figures {
  sent: number;
  fiveHundreds: number;
  nonJson: number;
  refused: number;
  accepted: number;
}

/** The invariants of one answer; `before` is the database before the request. */
async function check(
  figures: Figures,
  built: Built,
  answer: { status: number; contentType: string | undefined; body: string },
  before: string,
): Promise<string> {
  figures.sent++;
  if (answer.status >= 500) figures.fiveHundreds++;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    figures.nonJson++;
  }
  const what = `${built.method} ${built.url} ${String(built.payload).slice(0, 200)} -> ${answer.status} ${answer.body.slice(0, 200)}`;
  expect(answer.status, what).toBeLessThan(500);
  expect(answer.contentType, what).toMatch(/^application\/json/);
  expect(parsed, what).toBeTypeOf('object');
  const after = await stateDigest();
  if (answer.status >= 400) {
    figures.refused++;
    expect((parsed as { error?: unknown }).error, what).toBeTypeOf('string');
    expect(after, `a refused request changed the database: ${what}`).toBe(before);
  } else {
    figures.accepted++;
  }
  return after;
}

it('thousands of malformed requests: no 5xx, JSON errors, refused requests change nothing', async () => {
  const figures: Figures = { sent: 0, fiveHundreds: 0, nonJson: 0, refused: 0, accepted: 0 };
  let before = await stateDigest();
  const started = Date.now();
  await fuzz(
    fc.asyncProperty(request, async (r) => {
      const built = build(r);
      const res = await server.app.inject({
        method: built.method as InjectOptions['method'],
        url: built.url,
        headers: built.headers,
        ...(built.payload === undefined ? {} : { payload: built.payload }),
      });
      const contentType = res.headers['content-type'];
      before = await check(
        figures,
        built,
        { status: res.statusCode, contentType: contentType as string | undefined, body: res.body },
        before,
      );
    }),
    SEED,
    RUNS,
    INJECT_TIME_LIMIT_MS,
  );
  console.log(
    `fuzz (inject): ${JSON.stringify(figures)} in ${Date.now() - started} ms (seed ${SEED})`,
  );
  expect(figures.sent).toBeGreaterThanOrEqual(RUNS.least);
}, 180_000);

/** Sends one request as raw bytes over TCP (correctly framed) and reads the whole answer. */
async function rawExchange(port: number, built: Built, host = true) {
  const body = built.payload === undefined ? Buffer.alloc(0) : Buffer.from(built.payload);
  const head = [
    `${built.method} ${built.url} HTTP/1.1`,
    ...(host ? ['Host: 127.0.0.1'] : []),
    'Connection: close',
    ...Object.entries(built.headers).map(([name, value]) => `${name}: ${value}`),
    ...(built.payload === undefined ? [] : [`Content-Length: ${body.length}`]),
    '',
    '',
  ].join('\r\n');
  const socket = connect(port, '127.0.0.1');
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const headLines = text.slice(0, split).split('\r\n');
  const status = Number(headLines[0]?.split(' ')[1]);
  const contentType = headLines
    .find((line) => line.toLowerCase().startsWith('content-type:'))
    ?.slice('content-type:'.length)
    .trim();
  return { status, contentType, body: text.slice(split + 4) };
}

/** Header values the generator may produce that HTTP cannot carry (a transport matter). */
const sendable = (r: GeneratedRequest) =>
  r.idempotencyKey === undefined || /^[\x20-\x7e]*$/.test(r.idempotencyKey);

it('the same over real TCP, as raw bytes: no 5xx, JSON errors, refused requests change nothing', async () => {
  const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
  const port = Number(new URL(address).port);
  const figures: Figures = { sent: 0, fiveHundreds: 0, nonJson: 0, refused: 0, accepted: 0 };
  let before = await stateDigest();
  const started = Date.now();
  await fuzz(
    fc.asyncProperty(request.filter(sendable), async (r) => {
      const built = build(r);
      before = await check(figures, built, await rawExchange(port, built), before);
    }),
    SEED + 1,
    RAW_RUNS,
    TIME_LIMIT_MS,
  );
  console.log(
    `fuzz (raw TCP): ${JSON.stringify(figures)} in ${Date.now() - started} ms (seed ${SEED + 1})`,
  );
  expect(figures.sent).toBeGreaterThanOrEqual(RAW_RUNS.least);
}, 180_000);

/** What the transport alone sees, applied to a generated request. */
const transportFault = fc.oneof(
  fc.record({
    kind: fc.constant('bad percent-encoding' as const),
    text: fc.constantFrom('%zz', '%', '%E0%A4%A', '%C0%AF', '%%', '%u0041', '%ZZ%00'),
    at: fc.nat(),
  }),
  fc.record({ kind: fc.constant('no Host' as const) }),
  fc.record({ kind: fc.constant('CONNECT' as const) }),
  fc.record({
    kind: fc.constant('method' as const),
    method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'FOO', 'BREW'),
  }),
);

/** The request with its fault, and whether it keeps its Host header. */
function withFault(
  built: Built,
  fault: typeof transportFault extends fc.Arbitrary<infer T> ? T : never,
) {
  switch (fault.kind) {
    case 'bad percent-encoding': {
      const end = built.url.indexOf('?') === -1 ? built.url.length : built.url.indexOf('?');
      const at = 1 + (fault.at % end);
      return {
        built: { ...built, url: built.url.slice(0, at) + fault.text + built.url.slice(at) },
        host: true,
      };
    }
    case 'no Host':
      return { built, host: false };
    case 'CONNECT':
      return { built: { ...built, method: 'CONNECT', url: '127.0.0.1:443' }, host: true };
    case 'method':
      return { built: { ...built, method: fault.method }, host: true };
  }
}

it('transport-level faults over TCP: no 5xx, JSON errors, nothing changed', async () => {
  const address = server.app.server.listening
    ? `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`
    : await server.app.listen({ port: 0, host: '127.0.0.1' });
  const port = Number(new URL(address).port);
  const figures: Figures = { sent: 0, fiveHundreds: 0, nonJson: 0, refused: 0, accepted: 0 };
  const faults: Record<string, number> = {};
  let before = await stateDigest();
  const started = Date.now();
  await fuzz(
    fc.asyncProperty(request.filter(sendable), transportFault, async (r, fault) => {
      const { built, host } = withFault(build(r), fault);
      const answer = await rawExchange(port, built, host);
      const label = fault.kind === 'method' ? `${fault.method} (${r.route[0]} route)` : fault.kind;
      faults[label] = (faults[label] ?? 0) + 1;
      // A wrong method on a known path is 405 with the methods it takes; with its own, it is
      // the first two parts' business.
      if (fault.kind === 'method' && fault.method === r.route[0]) {
        before = await check(figures, built, answer, before);
        return;
      }
      expect(answer.status, `${label}: ${built.method} ${built.url}`).toBeGreaterThanOrEqual(400);
      before = await check(figures, built, answer, before);
    }),
    SEED + 2,
    RAW_RUNS,
    TIME_LIMIT_MS,
  );
  console.log(
    `fuzz (transport): ${JSON.stringify(figures)} ${JSON.stringify(faults)} in ${Date.now() - started} ms (seed ${SEED + 2})`,
  );
  expect(figures.sent).toBeGreaterThanOrEqual(RAW_RUNS.least);
  // Every kind of fault was sent.
  for (const kind of ['bad percent-encoding', 'no Host', 'CONNECT'])
    expect(faults[kind]).toBeGreaterThan(0);
  expect(Object.keys(faults).filter((label) => / route\)$/.test(label)).length).toBeGreaterThan(8);
}, 180_000);
