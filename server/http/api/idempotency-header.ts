import type { FastifyReply, preValidationHookHandler } from 'fastify';
import { Headers } from '../../../contract/headers.js';
import { IDEMPOTENCY_KEY } from '../../../contract/idempotency-key.js';
import { Conflict, Invalid } from '../../domain/domain-errors.js';
import type { Answer } from '../../services/idempotency-service.js';

/**
 * The Idempotency-Key header, judged before the body (as it always was): a hook rather than a
 * header schema, which Fastify would check after the body.
 */
export const checkIdempotencyKey: preValidationHookHandler = (request, _reply, done) => {
  const key = request.headers[Headers.idempotencyKey];
  if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
    done(new Invalid('idempotency-key'));
    return;
  }
  done();
};

/** What a route with the header may answer because of it: a malformed key, a key reused. */
export const IDEMPOTENCY_KEY_ERRORS = [
  new Invalid('idempotency-key'),
  new Conflict('idempotency-key-reused'),
];

/** A replayed answer (same Idempotency-Key, same request) says so in a header. */
export function answer<T>(reply: FastifyReply, { response, replayed }: Answer<T>): T {
  if (replayed) reply.header(Headers.idempotentReplayed, 'true');
  return response;
}

export const idempotencyKeyOf = (headers: Record<string, unknown>) =>
  headers[Headers.idempotencyKey] as string | undefined;
