/**
 * Why an operation cannot be carried out, in the domain's words. Services throw these; only the
 * HTTP layer (`server/http/api/domain-error-mapping.ts`) knows which status and text each becomes,
 * and the admin CLI prints the same text.
 */
export abstract class DomainError<Reason extends string = string> extends Error {
  abstract readonly kind:
    | 'unauthorized'
    | 'not-found'
    | 'forbidden'
    | 'conflict'
    | 'invalid'
    | 'unavailable'
    | 'storage-unavailable'
    | 'storage-full'
    | 'read-timeout';

  constructor(
    readonly reason: Reason,
    options?: ErrorOptions,
  ) {
    super(reason, options);
    this.name = new.target.name;
  }
}

/** The credentials presented (a key at sign-in) are not valid. */
export class Unauthorized extends DomainError<'key'> {
  readonly kind = 'unauthorized';
}

/** The thing named does not exist (for this caller). `key` is the admin's, `api-key` an account's. */
export class NotFound extends DomainError<
  | 'profile'
  | 'account'
  | 'key'
  | 'api-key'
  | 'share-link'
  | 'project'
  | 'threshold'
  | 'alert'
  | 'record'
  | 'channel'
  | 'test'
> {
  readonly kind = 'not-found';
}

/**
 * The caller may not do this. Unknown projects are reported as `project` too, so ids do not leak;
 * `ingest-only` is an ingest key asking for anything but E6, E7 and E8.
 */
export class Forbidden extends DomainError<'project' | 'ingest-only'> {
  readonly kind = 'forbidden';
}

/** The request contradicts what is stored. */
export class Conflict extends DomainError<
  'display-name-taken' | 'idempotency-key-reused' | 'project-name-taken' | 'too-many-channels'
> {
  readonly kind = 'conflict';
}

/** The input breaks a domain rule that a schema cannot express. */
export class Invalid extends DomainError<
  | 'display-name-length'
  | 'display-name-reserved'
  | 'idempotency-key'
  | 'range'
  | 'channel-url'
  | 'channel-token'
  | 'channel-thread'
  | 'read-budget'
> {
  readonly kind = 'invalid';
}

/**
 * A field breaks a rule a schema cannot express (a threshold's model, a payload's directions):
 * `text` is the sentence that names it, for the 400's `error`.
 */
export class InvalidField extends DomainError<'field'> {
  readonly kind = 'invalid';

  constructor(
    readonly field: string,
    readonly text: string,
  ) {
    super('field');
  }
}

/** An outside service the operation depends on failed; nothing was changed. */
export class Unavailable extends DomainError<'forwarding-provider'> {
  readonly kind = 'unavailable';
}

/**
 * The database cannot be reached for now (a restart, a lost connection): try again in a moment.
 * Storage throws it; what was acknowledged before is kept, and nothing is acknowledged meanwhile.
 * `flush-failed`: a flush of SQLite's log failed (DURABILITY=full); the server refuses every
 * write until it is restarted, since what the disk holds is no longer known (docs/operations-storage-faults.md).
 */
export class StorageUnavailable extends DomainError<'database' | 'flush-failed'> {
  readonly kind = 'storage-unavailable';
}

/**
 * The database's disk is full: a write failed for lack of space (SQLITE_FULL, PostgreSQL's
 * 53100). Nothing of it is stored, what was acknowledged before is intact; try again later.
 */
export class StorageFull extends DomainError<'storage-full'> {
  readonly kind = 'storage-full';
}

/**
 * A read ran past the time the server allows one (PostgreSQL's statement_timeout, READ_TIMEOUT_MS)
 * and was cancelled: nothing changed; a narrower read, or the same one later, may pass.
 */
export class ReadTimeout extends DomainError<'read-timeout'> {
  readonly kind = 'read-timeout';
}

/** Seconds to wait before writing again after a write failed for lack of space (Retry-After). */
export const STORAGE_FULL_RETRY_S = 30;

export type AnyDomainError =
  | Unauthorized
  | NotFound
  | Forbidden
  | Conflict
  | Invalid
  | InvalidField
  | Unavailable
  | StorageUnavailable
  | StorageFull
  | ReadTimeout;
