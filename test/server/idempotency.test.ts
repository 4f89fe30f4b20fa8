import { describe, expect, it } from 'vitest';
import { OwnError } from '../../contract/error-texts.js';
import { selectColumn } from '../helpers/database.js';
import {
  eachTestServer,
  startTestServer,
  type TestAccount,
  type TestServer,
} from '../helpers/server.js';

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started));

const post = (url: string, body: unknown, key?: string, who = me) =>
  server.call('POST', url, {
    key: who.apiKey,
    body,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });
const count = async (table: 'events' | 'metrics') =>
  (await selectColumn(server.database, `SELECT COUNT(*) FROM ${table}`))[0] as number;

describe.each([
  [
    '/stats/ingest-events',
    'events',
    () => ({ projectId: me.projectId, eventType: 'build', payload: { n: 1 } }),
  ],
  ['/stats/ingest-metrics', 'metrics', () => ({ projectId: me.projectId, payload: { ms: 12 } })],
] as const)('%s', (url, table, body) => {
  it('a repeat with the same key returns the original answer and stores nothing new', async () => {
    const first = await post(url, body(), 'run-1-attempt-1-event');
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post(url, body(), 'run-1-attempt-1-event');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await count(table)).toBe(1);
  });

  it('concurrent repeats store one record and all get its id', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post(url, body(), 'same-key')),
    );
    const ids = new Set(answers.map((a) => a.json().id));
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    expect(ids.size).toBe(1);
    expect(await count(table)).toBe(1);
  });

  it('concurrent repeats of a key stored earlier all get the stored answer', async () => {
    const first = await post(url, body(), 'stored-earlier');
    const repeats = await Promise.all(
      Array.from({ length: 5 }, () => post(url, body(), 'stored-earlier')),
    );
    for (const repeat of repeats) {
      expect({ status: repeat.statusCode, body: repeat.json() }).toEqual({
        status: 200,
        body: first.json(),
      });
      expect(repeat.headers['idempotent-replayed']).toBe('true');
    }
    expect(await count(table)).toBe(1);
  });

  it('the same key with another body is 422 and stores nothing', async () => {
    await post(url, body(), 'k');
    const other = await post(url, { ...body(), payload: { different: true } }, 'k');
    expect({ status: other.statusCode, body: other.json() }).toEqual({
      status: 422,
      body: { error: OwnError.idempotencyKeyReused },
    });
    expect(await count(table)).toBe(1);
  });

  it('keys are per account', async () => {
    const other = await server.account();
    await post(url, body(), 'shared');
    const theirs = await post(url, { ...body(), projectId: other.projectId }, 'shared', other);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(await count(table)).toBe(2);
  });

  it('without a key every request stores a record', async () => {
    await post(url, body());
    await post(url, body());
    expect(await count(table)).toBe(2);
  });

  it('a malformed key is 400 and stores nothing', async () => {
    for (const key of ['', 'x'.repeat(256), 'has space', 'ünïcode']) {
      const res = await post(url, body(), key);
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 400,
        body: { error: OwnError.idempotencyKeyInvalid },
      });
    }
    expect(await count(table)).toBe(0);
  });

  it('a failed request does not use up its key', async () => {
    const bad = await post(url, { ...body(), projectId: 'not-mine' }, 'retry-me');
    expect(bad.statusCode).toBe(403);
    expect((await post(url, body(), 'retry-me')).statusCode).toBe(200);
    expect(await count(table)).toBe(1);
  });
});

it('the same key on E7 and on E8 is a different request: 422', async () => {
  await post('/stats/ingest-events', { projectId: me.projectId, eventType: 'x' }, 'k');
  const res = await post('/stats/ingest-metrics', { projectId: me.projectId, payload: {} }, 'k');
  expect(res.statusCode).toBe(422);
});

it('answers survive a restart of the server on the same database', async () => {
  const body = { projectId: me.projectId, eventType: 'deploy' };
  const first = await post('/stats/ingest-events', body, 'durable-key');
  const database = server.database;
  await server.app.close();
  server = await startTestServer({}, database);
  const again = await post('/stats/ingest-events', body, 'durable-key');
  expect(again.json()).toEqual(first.json());
  expect(await count('events')).toBe(1);
});
