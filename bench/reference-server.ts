import Fastify from 'fastify';

/**
 * The benchmark's yardstick: a bare Fastify POST route that parses the same JSON body and answers
 * like E7, with no validation, no authentication and no database; and a bare GET route answering
 * a fixed HTML page as large as the public page measured (`PAGE_BYTES`).
 */
const app = Fastify({ logger: false });
const page = `<!doctype html>${'x'.repeat(Math.max(Number(process.env.PAGE_BYTES ?? 2000) - 15, 0))}`;
app.get('/page', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
let next = 0;
app.post('/ingest', async (request) => {
  next += 1;
  return { message: 'ok', id: String(next), size: Object.keys(request.body as object).length };
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${url}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
