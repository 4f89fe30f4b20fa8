import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { OwnError } from '../../../contract/error-texts.js';
import { Headers } from '../../../contract/headers.js';
import { identifyCaller } from '../../storage/read-routing/read-scope.js';
import type { KeyOwner } from '../../storage/storage.js';
import { withHook } from './route-hooks.js';

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
 * every route that does not take ingest keys. Wrong keys are counted per client address: past
 * their limit, 429 instead of 401 (`bad-keys.ts`).
 *
 * A hook of each route (added as the route is, first among its own), made with the route's
 * config: reading `request.routeOptions` builds an object of a dozen fields per request.
 */
export function requireApiKey(app: FastifyInstance, unauthorizedText: string): void {
  const { credentials } = app.services;
  app.addHook('onRoute', (route) => {
    const unauthorized = route.config?.unauthorized ?? unauthorizedText;
    const ingestKeys = route.config?.ingestKeys === true;
    const authenticate: onRequestHookHandler = (request, reply, done) => {
      credentials.verify(request.headers[Headers.apiKey]).then(
        (owner) => {
          if (owner === undefined) {
            refuseBadKey(app, request, reply, unauthorized);
            return;
          }
          if (owner.scope !== 'full' && !ingestKeys) {
            reply.code(403).send({ error: OwnError.ingestOnly });
            return;
          }
          request.account = owner;
          // Read-your-writes is per key: a key's reads see its own writes at once.
          identifyCaller(`key:${owner.keyId}`);
          done();
        },
        (error: Error) => done(error),
      );
    };
    route.onRequest = withHook(route.onRequest, authenticate, 'first');
  });
}

/** 401, or 429 with `Retry-After` once the client's address is over its count of wrong keys. */
function refuseBadKey(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  unauthorized: string,
): void {
  app.badKeys.count(request.ip).then(
    (retryInMs) => {
      if (retryInMs === undefined) {
        reply.code(401).send({ error: unauthorized });
        return;
      }
      reply
        .code(429)
        .header('retry-after', String(Math.max(1, Math.ceil(retryInMs / 1000))))
        .send({ error: OwnError.rateLimited });
    },
    (error: Error) => reply.send(error),
  );
}
