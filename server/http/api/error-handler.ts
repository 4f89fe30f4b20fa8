import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { OwnError, SpecError } from '../../../contract/error-texts.js';
import type { ErrorText, IssuePaths } from '../../../contract/fields.js';
import { Headers } from '../../../contract/headers.js';
import { type AnyDomainError, DomainError } from '../../domain/domain-errors.js';
import { allowedMethods } from '../transport.js';
import { describeDomainError, RETRY_AFTER_S } from './domain-error-mapping.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The 400 text of a request that fails the route's schema (default: Invalid request body.). */
    invalid?: ErrorText;
    /** The spec's 500 text for this endpoint, when it is not the generic one. */
    internalError?: string;
  }
}

/** Fastify's own client errors that have a text of ours. */
const CLIENT_ERRORS: Record<string, { status: number; error: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, error: OwnError.bodyTooLarge },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, error: OwnError.unsupportedMediaType },
};

/** The path of each problem the zod type provider reported, e.g. `/payload/x` -> ['payload', 'x']. */
const issuePaths = (validation: FastifyError['validation']): IssuePaths =>
  (validation ?? []).map((issue) => issue.instancePath.split('/').slice(1));

/** One problem of a refused request: where (`chatWebhook.url`, `blocks.3.content`; `` for the whole body) and why. */
export interface Issue {
  path: string;
  message: string;
}

/** At most this many issues are listed: enough to fix a request, bounded for a hostile one. */
const MAX_ISSUES = 20;

/** Each problem the validator reported, an unknown field once per field. */
function issuesOf(validation: FastifyError['validation']): Issue[] {
  const issues: Issue[] = [];
  for (const problem of validation ?? []) {
    const path = problem.instancePath
      .split('/')
      .slice(1)
      .filter((part) => part !== '');
    const keys = (problem.params as { keys?: unknown }).keys;
    if (problem.keyword === 'unrecognized_keys' && Array.isArray(keys)) {
      for (const key of keys)
        issues.push({ path: [...path, String(key)].join('.'), message: 'unknown field' });
    } else {
      issues.push({ path: path.join('.'), message: problem.message ?? 'invalid value' });
    }
  }
  return issues.slice(0, MAX_ISSUES);
}

/** The 400 text of a request that failed its route's schema. */
function invalidText(error: FastifyError, request: FastifyRequest): string {
  const invalid = request.routeOptions.config.invalid ?? SpecError.invalidBody;
  if (typeof invalid === 'string') return invalid;
  const input = error.validationContext === 'querystring' ? request.query : request.body;
  return invalid(issuePaths(error.validation), input);
}

/**
 * Every error of the JSON API becomes `{ "error": "..." }`: domain errors through the one
 * mapping, schema failures with the route's 400 text, malformed bodies with the spec's 400, and
 * anything unexpected as a 500 with the route's spec text (logged with the request id, which the
 * client gets in `x-request-id`; never a stack).
 */
export function jsonErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  if (error instanceof DomainError) {
    const { status, text } = describeDomainError(error as AnyDomainError);
    // The database is away for a moment (a restart), or its disk is full: say when to try again.
    const retryAfter = RETRY_AFTER_S[(error as AnyDomainError).kind];
    if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
    return reply.code(status).send({ error: text });
  }
  if (error.validation) {
    // The spec's text, verbatim, and what exactly is wrong.
    return reply
      .code(400)
      .send({ error: invalidText(error, request), issues: issuesOf(error.validation) });
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
  request.server.logger.error({ reqId: request.id, err: error }, 'request failed');
  return reply
    .code(500)
    .header(Headers.requestId, request.id)
    .send({ error: request.routeOptions.config.internalError ?? SpecError.internal });
}

/** An unknown path is 404; a known path asked with another method is 405 with `Allow`. */
export function jsonNotFound(request: FastifyRequest, reply: FastifyReply) {
  const allow = allowedMethods(request);
  if (allow.length > 0) {
    return reply
      .code(405)
      .header('allow', allow.join(', '))
      .send({ error: OwnError.methodNotAllowed });
  }
  return reply.code(404).send({ error: OwnError.notFound });
}
