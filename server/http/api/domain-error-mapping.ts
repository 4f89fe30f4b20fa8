import { AdminError } from '../../../contract/admin.js';
import { OwnError, SpecError } from '../../../contract/error-texts.js';
import { VerdictText } from '../../../contract/verdicts.js';
import { type AnyDomainError, STORAGE_FULL_RETRY_S } from '../../domain/domain-errors.js';

const STATUS: Record<AnyDomainError['kind'], number> = {
  unauthorized: 401,
  'not-found': 404,
  forbidden: 403,
  conflict: 409,
  invalid: 400,
  // The spec answers a failed forwarding provider with 500.
  unavailable: 500,
  'storage-unavailable': 503,
  'storage-full': 503,
  'read-timeout': 503,
};

/** Seconds a 503 asks the client to wait: a restart is a moment, a full disk needs an operator. */
export const RETRY_AFTER_S: Partial<Record<AnyDomainError['kind'], number>> = {
  'storage-unavailable': 1,
  'storage-full': STORAGE_FULL_RETRY_S,
  'read-timeout': 5,
};

/** The `error` text of each reason: the spec's verbatim where it has one. */
const TEXT: Record<AnyDomainError['reason'], string> = {
  profile: SpecError.profileNotFound,
  account: AdminError.accountNotFound,
  // An admin's unknown key; at sign-in (Unauthorized) the page says so in its own words.
  key: AdminError.keyNotFound,
  'api-key': OwnError.apiKeyNotFound,
  'share-link': OwnError.shareLinkNotFound,
  channel: OwnError.channelNotFound,
  'too-many-channels': OwnError.tooManyChannels,
  'channel-url': OwnError.channelUrl,
  'channel-token': OwnError.channelToken,
  'channel-thread': OwnError.channelThread,
  record: OwnError.recordNotFound,
  test: OwnError.testNotFound,
  threshold: VerdictText.thresholdNotFound,
  alert: VerdictText.alertNotFound,
  // Replaced by the error's own text (InvalidField), which names the field.
  field: SpecError.invalidBody,
  range: SpecError.invalidBody,
  project: SpecError.forbiddenProject,
  'ingest-only': OwnError.ingestOnly,
  'project-name-taken': OwnError.projectNameTaken,
  'display-name-taken': SpecError.displayNameTaken,
  'idempotency-key-reused': OwnError.idempotencyKeyReused,
  'display-name-length': OwnError.displayNameLength,
  'display-name-reserved': OwnError.displayNameReserved,
  'idempotency-key': OwnError.idempotencyKeyInvalid,
  'forwarding-provider': SpecError.forwardingSyncFailed,
  database: OwnError.databaseUnavailable,
  'flush-failed': OwnError.flushFailed,
  'storage-full': OwnError.storageFull,
  'read-budget': OwnError.readBudget,
  'read-timeout': OwnError.readTimeout,
};

/** The one mapping from a domain error to an HTTP answer (the admin CLI prints the same text). */
export function describeDomainError(error: AnyDomainError): { status: number; text: string } {
  // A key reused for another request is not a state conflict but an unprocessable request, as
  // the IETF Idempotency-Key draft has it.
  const status = error.reason === 'idempotency-key-reused' ? 422 : STATUS[error.kind];
  const text = error.kind === 'invalid' && 'text' in error ? error.text : TEXT[error.reason];
  return { status, text };
}
