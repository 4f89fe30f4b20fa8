import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { Headers } from '../../../contract/headers.js';
import type { KeyOwner } from '../../storage/storage.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API-key hook on every authenticated route. */
    account: KeyOwner;
  }
}

/**
 * An onRequest hook that admits only requests with a valid `X-API-KEY`. It runs before the body
 * is read, so authentication (401) is always judged before the body (400). Each API area passes
 * its own 401 text, as the spec's texts differ between endpoints.
 */
export function requireApiKey(
  app: FastifyInstance,
  unauthorizedText: string,
): onRequestHookHandler {
  const { credentials } = app.services;
  return (request, reply, done) => {
    credentials.verify(request.headers[Headers.apiKey]).then(
      (owner) => {
        if (owner === undefined) {
          reply.code(401).send({ error: unauthorizedText });
          return;
        }
        request.account = owner;
        done();
      },
      (error: Error) => done(error),
    );
  };
}
