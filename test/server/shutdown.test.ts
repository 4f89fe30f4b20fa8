import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { OwnError } from '../../contract/error-texts.js';
import { selectColumn } from '../helpers/database.js';
import { parseAnswers } from '../helpers/raw-http.js';
import { startTestServer } from '../helpers/server.js';

/**
 * Requests that arrive while the server closes (SIGTERM, SIGINT): a request already under way
 * is answered and its write kept; one that arrives on an open connection meanwhile gets 503 JSON
 * and the connection is closed; a new connection is refused. Never a lost acknowledged write.
 */

it('while closing: the request under way is answered and kept, the next one gets 503 JSON', async () => {
  const server = await startTestServer();
  const me = await server.account();
  const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
  const port = Number(new URL(address).port);
  const event = (eventType: string) =>
    JSON.stringify({ projectId: me.projectId, eventType, payload: { n: 1 } });
  const head = (body: string) =>
    `POST /stats/ingest-events HTTP/1.1\r\nHost: t\r\nX-API-KEY: ${me.apiKey}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;

  // A request under way: its headers and half its body, before the close begins.
  const first = event('under-way');
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  const closed = new Promise((resolve) => socket.on('close', resolve));
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(head(first) + first.slice(0, 10));
  await new Promise((resolve) => setTimeout(resolve, 100));

  const closing = server.app.close();
  await new Promise((resolve) => setTimeout(resolve, 50));
  // The rest of its body, and a second request behind it on the same connection.
  const second = event('arrived-while-closing');
  socket.write(first.slice(10) + head(second) + second);
  await closed;
  await closing;

  const answers = parseAnswers(text);
  expect(answers.map((a) => a.status)).toEqual([200, 503]);
  expect(JSON.parse(answers[0]?.body ?? '')).toMatchObject({ id: expect.any(String) });
  expect(JSON.parse(answers[1]?.body ?? '')).toEqual({ error: OwnError.shuttingDown });
  expect(answers[1]?.headers.connection).toBe('close');
  expect(answers[1]?.headers['content-type']).toMatch(/^application\/json/);

  // A new connection finds nobody listening.
  const refused = await new Promise<string>((resolve) => {
    const late = connect(port, '127.0.0.1');
    late.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    late.on('connect', () => {
      late.destroy();
      resolve('connected');
    });
  });
  expect(refused).toBe('ECONNREFUSED');

  // What was acknowledged is stored; what got 503 is not.
  expect(await selectColumn(server.database, 'SELECT event_type FROM events')).toEqual([
    'under-way',
  ]);
  await server.database.drop();
});
