import type { FastifyError, FastifyInstance } from 'fastify';
import { OwnError, SpecError } from '../contract/errors.js';
import { HttpError } from '../errors.js';

/** Fastify's own client errors that have a text of ours. */
const CLIENT_ERRORS: Record<string, { status: number; error: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, error: OwnError.bodyTooLarge },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, error: OwnError.unsupportedMediaType },
};

/**
 * One place maps every error to `{ "error": "..." }`: typed HttpErrors keep their status and
 * text, malformed bodies are the spec's 400, and anything unexpected is a 500 with the route's
 * spec text (logged with the request id, which the client gets in `x-request-id`; never a stack).
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
      return reply.code(error.statusCode).send({ error: error.message });
    }
    const known = error.code ? CLIENT_ERRORS[error.code] : undefined;
    if (known) return reply.code(known.status).send({ error: known.error });
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Malformed JSON, bad Content-Length, prototype poisoning...: the body cannot be used.
      return reply
        .code(status)
        .send({ error: status === 400 ? SpecError.invalidBody : error.message });
    }
    request.log.error({ err: error }, 'request failed');
    return reply
      .code(500)
      .header('x-request-id', request.id)
      .send({ error: request.routeOptions.config.internalError ?? SpecError.internal });
  });

  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: OwnError.notFound }));
}

/**
 * JSON is the only request format. An empty body counts as no body (E3 is a POST without one,
 * sent by some clients with `Content-Type: application/json`); everything else goes through
 * Fastify's own parser, which rejects prototype poisoning.
 */
export function installJsonParser(app: FastifyInstance): void {
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
