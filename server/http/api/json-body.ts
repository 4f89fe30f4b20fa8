import type { FastifyInstance } from 'fastify';

/**
 * JSON is the API's only request format (anything else is 415). An empty body counts as no body
 * (E3 is a POST without one, sent by some clients with `Content-Type: application/json`);
 * everything else goes through Fastify's own parser, which rejects prototype poisoning.
 */
export function acceptJsonOnly(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
}
