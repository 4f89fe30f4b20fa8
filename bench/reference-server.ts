import Fastify from 'fastify';

/**
 * The benchmark's yardstick: a bare Fastify POST route that parses the same JSON body and answers
 * like E7, with no validation, no authentication and no database.
 */
const app = Fastify({ logger: false });
let next = 0;
app.post('/ingest', async (request) => {
  next += 1;
  return { message: 'ok', id: String(next), size: Object.keys(request.body as object).length };
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${url}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
