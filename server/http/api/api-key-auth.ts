import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { OwnError } from '../../../contract/error-texts.js';
import { Headers } from '../../../contract/headers.js';
import type { KeyOwner } from '../../storage/storage.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API-key hook on every authenticated route. */
    account: KeyOwner;
  }
  interface FastifyContextConfig {
    /** This route's 401 text, when it is not its area's. */
    unauthorized?: string;
    /** Ingest keys may call this route (E6, E7, E8); every other route refuses them. */
    ingestKeys?: boolean;
  }
}

/**
 * An onRequest hook that admits only requests with a valid `X-API-KEY`. It runs before the body
 * is read, so authentication (401) is always judged before the body (400). Each API area passes
 * its own 401 text, as the spec's texts differ between endpoints. An ingest key gets 403 on
 * every route that does not take ingest keys.
 */
export function requireApiKey(
  app: FastifyInstance,
  unauthorizedText: string,
): onRequestHookHandler {
  const { credentials } = app.services;
  return (request, reply, done) => {
    credentials.verify(request.headers[Headers.apiKey]).then(
      (owner) => {
        const config = request.routeOptions.config;
        if (owner === undefined) {
          reply.code(401).send({ error: config.unauthorized ?? unauthorizedText });
          return;
        }
        if (owner.scope !== 'full' && config.ingestKeys !== true) {
          reply.code(403).send({ error: OwnError.ingestOnly });
          return;
        }
        request.account = owner;
        done();
      },
      (error: Error) => done(error),
    );
  };
}
