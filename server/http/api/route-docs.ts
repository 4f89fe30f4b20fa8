import type { FastifyInstance, RouteOptions } from 'fastify';
import { OwnError, SpecError } from '../../../contract/error-texts.js';
import type { ErrorText } from '../../../contract/fields.js';
import {
  type AnyDomainError,
  StorageFull,
  StorageUnavailable,
} from '../../domain/domain-errors.js';
import { describeDomainError } from './domain-error-mapping.js';
import { checkIdempotencyKey, IDEMPOTENCY_KEY_ERRORS } from './idempotency-header.js';

/**
 * What the API reference says of a route, derived from what the route already declares: its
 * schemas (body, query), its area (tag, authentication, 401 text, rate limit), its config
 * (`invalid`, `internalError`, `ingestKeys`, `unauthorized`), its hooks (the Idempotency-Key
 * check), and the few facts only the route knows, in `config.docs`: the success answer with an
 * example, and the domain errors its service may throw. openapi.ts turns this into the document.
 */

export type Tag = 'Email forwarding' | 'Site' | 'Account' | 'Statistics' | 'Health' | 'Admin';

/** Set on every route of an area by `describeArea`. */
export interface AreaDocs {
  tag: Tag;
  auth: 'api-key' | 'admin' | 'none';
  /** The area's 401 text (a route may have its own: `config.unauthorized`). */
  unauthorized?: string;
  /** Under the per-key (or per-address) rate limits: 429 is one of its answers. */
  rateLimited: boolean;
}

/** What only the route itself can say. */
export interface RouteDocs {
  /** The success status (200 unless said) and an example of its body; none: no body (204). */
  success: { status?: number; example?: unknown };
  /** The domain errors its service may throw; their status and text come from the one mapping. */
  throws?: AnyDomainError[];
  /** Answers of its own that are no domain error (the health check's 503). */
  answers?: Record<number, string[]>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    docs?: RouteDocs;
    area?: AreaDocs;
  }
}

/** Every route registered under `instance` from now on belongs to `area`. */
export function describeArea(instance: FastifyInstance, area: AreaDocs): void {
  instance.addHook('onRoute', (route) => {
    route.config = { ...route.config, area };
  });
}

/** The framework's own refusals that any route taking a body may answer. */
const BODY_ERRORS: Record<number, string[]> = {
  413: [OwnError.bodyTooLarge],
  415: [OwnError.unsupportedMediaType],
};

const textsOf = (invalid: ErrorText | undefined): readonly string[] =>
  invalid === undefined
    ? [SpecError.invalidBody]
    : typeof invalid === 'string'
      ? [invalid]
      : invalid.texts;

const hooks = (hook: unknown): unknown[] => (Array.isArray(hook) ? hook : hook ? [hook] : []);

export interface DescribedRoute {
  summary?: string;
  tag: Tag;
  auth: AreaDocs['auth'];
  success: RouteDocs['success'];
  /** Every error status with its `error` texts, in status order. */
  errors: Map<number, string[]>;
}

/** The whole description of a route, or undefined for one the reference leaves out. */
export function describeRoute(route: RouteOptions): DescribedRoute | undefined {
  const config = (route.config ?? {}) as { docs?: RouteDocs; area?: AreaDocs } & Record<
    string,
    unknown
  >;
  const { docs, area } = config;
  if (!docs || !area) return undefined;
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  const errors = new Map<number, Set<string>>();
  const add = (status: number, texts: readonly string[]) => {
    const set = errors.get(status) ?? new Set<string>();
    for (const text of texts) set.add(text);
    errors.set(status, set);
  };
  const raise = (error: AnyDomainError) => {
    const { status, text } = describeDomainError(error);
    add(status, [text]);
  };

  if (schema.body || schema.querystring || schema.params) {
    add(400, textsOf(config.invalid as ErrorText | undefined));
  }
  // Malformed JSON, whatever the route's own texts.
  if (schema.body) add(400, [SpecError.invalidBody]);
  if (hooks(route.preValidation).includes(checkIdempotencyKey)) {
    for (const error of IDEMPOTENCY_KEY_ERRORS) raise(error);
  }
  if (area.auth !== 'none') {
    add(401, [(config.unauthorized as string | undefined) ?? area.unauthorized ?? 'Unauthorized']);
  }
  if (area.auth === 'api-key' && config.ingestKeys !== true) add(403, [OwnError.ingestOnly]);
  for (const error of docs.throws ?? []) raise(error);
  if (schema.body) for (const [status, texts] of Object.entries(BODY_ERRORS)) add(+status, texts);
  if (area.rateLimited) add(429, [OwnError.rateLimited]);
  for (const [status, texts] of Object.entries(docs.answers ?? {})) add(+status, texts);
  if (area.auth !== 'none' || area.rateLimited) {
    add(500, [(config.internalError as string | undefined) ?? SpecError.internal]);
    raise(new StorageUnavailable('database'));
    // A write needs room on the database's disk, and a disk whose flushes work; a read does not.
    if ([route.method].flat().some((method) => method !== 'GET' && method !== 'HEAD')) {
      raise(new StorageFull('storage-full'));
      raise(new StorageUnavailable('flush-failed'));
    }
  }
  return {
    summary: schema.summary as string | undefined,
    tag: area.tag,
    auth: area.auth,
    success: docs.success,
    errors: new Map([...errors].sort(([a], [b]) => a - b).map(([s, texts]) => [s, [...texts]])),
  };
}
