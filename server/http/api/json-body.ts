import type { FastifyInstance } from 'fastify';
import { checkFaithful } from '../../domain/faithful-json.js';

/**
 * JSON is the API's only request format (anything else is 415). An empty body counts as no body
 * (E3 is a POST without one, sent by some clients with `Content-Type: application/json`);
 * everything else goes through Fastify's own parser, which rejects prototype poisoning, and then
 * is checked for values JSON.parse would not keep as sent (`faithful-json.ts`).
 */
export function acceptJsonOnly(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, body as string, (error, parsed) => {
      if (!error) checkFaithful(body as string, parsed);
      done(error, parsed);
    });
  });
}
