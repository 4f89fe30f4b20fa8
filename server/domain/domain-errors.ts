/**
 * Why an operation cannot be carried out, in the domain's words. Services throw these; only the
 * HTTP layer (`server/http/api/domain-error-mapping.ts`) knows which status and text each becomes,
 * and the admin CLI prints the same text.
 */
export abstract class DomainError<Reason extends string = string> extends Error {
  abstract readonly kind: 'not-found' | 'forbidden' | 'conflict' | 'invalid' | 'unavailable';

  constructor(readonly reason: Reason) {
    super(reason);
    this.name = new.target.name;
  }
}

/** The thing named does not exist (for this caller). */
export class NotFound extends DomainError<'profile' | 'account' | 'key'> {
  readonly kind = 'not-found';
}

/** The caller may not touch it. Unknown projects are reported this way too, so ids do not leak. */
export class Forbidden extends DomainError<'project'> {
  readonly kind = 'forbidden';
}

/** The request contradicts what is stored. */
export class Conflict extends DomainError<'display-name-taken' | 'idempotency-key-reused'> {
  readonly kind = 'conflict';
}

/** The input breaks a domain rule that a schema cannot express. */
export class Invalid extends DomainError<
  'display-name-length' | 'display-name-reserved' | 'idempotency-key'
> {
  readonly kind = 'invalid';
}

/** An outside service the operation depends on failed; nothing was changed. */
export class Unavailable extends DomainError<'forwarding-provider'> {
  readonly kind = 'unavailable';
}

export type AnyDomainError = NotFound | Forbidden | Conflict | Invalid | Unavailable;
