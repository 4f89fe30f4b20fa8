import type { onRequestHookHandler } from 'fastify';

/**
 * An onRequest hook that admits only requests with a valid `X-API-KEY`. It runs before the body
 * is read, so authentication (401) is always judged before the body (400). Each API area passes
 * its own 401 text, as the spec's texts differ between endpoints.
 */
export function requireApiKey(unauthorizedText: string): onRequestHookHandler {
  return function authenticate(request, reply, done) {
    const owner = this.credentials.verify(request.headers['x-api-key']);
    if (owner === undefined) {
      reply.code(401).send({ error: unauthorizedText });
      return;
    }
    request.account = owner;
    done();
  };
}
