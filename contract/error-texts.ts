import { Limits } from './limits.js';
/**
 * The `error` strings of the spec's part 7, verbatim (including the odd 404 text), plus the
 * few texts we added where the spec is silent (docs/decisions.md).
 */
export const SpecError = {
  /** 401 on E1 and E2. */
  unauthorizedForwarding: 'Unauthorized: You must be logged in or provide a valid API Key.',
  /** 401 on E3, E4 and E5. */
  unauthorizedSite: 'Unauthorized',
  /** 401 on E6, E7 and E8. */
  unauthorizedStats: 'Unauthorized: You must provide a valid API Key.',
  invalidBody: 'Invalid request body.',
  emailRequired: 'A valid email address is required to enable forwarding.',
  projectIdRequired: 'Project ID is required.',
  metricPayloadRequired: 'Metric payload is required and must be an object.',
  forbiddenProject: 'Forbidden: You do not have access to this project.',
  profileNotFound: 'Your profile could not be found. Please set a the service Name first.',
  displayNameTaken: 'Display name already taken.',
  internal: 'An internal server error occurred.',
  forwardingSyncFailed: 'Failed to synchronize with the email forwarding service.',
  visibilityFailed: 'Could not update site visibility.',
  siteConfigurationFailed: 'Could not update site configuration.',
} as const;

/** Texts for conditions the spec does not cover (docs/decisions.md). */
export const OwnError = {
  displayNameMissing: 'display_name is required and must be a string.',
  displayNameLength:
    'display_name must be 3-32 characters long after normalisation (a-z, 0-9 and single "-").',
  displayNameReserved: 'This display name is reserved.',
  metricPayloadTooLarge: 'Metric payload must be at most 32768 bytes of JSON.',
  metricPayloadNul: 'Metric payload must not contain the NUL character (U+0000).',
  idempotencyKeyInvalid: 'Idempotency-Key must be 1-255 visible ASCII characters.',
  idempotencyKeyReused: 'Idempotency-Key was already used with a different request.',
  notFound: 'Not found.',
  bodyTooLarge: 'Request body is too large.',
  unsupportedMediaType: 'Unsupported Media Type: send application/json.',
  unsupportedEncoding: 'Unsupported Content-Encoding: send the body as is or with gzip.',
  adminUnauthorized: 'Unauthorized',
  ingestOnly: 'Forbidden: This API key can only ingest events and metrics.',
  apiKeyNotFound: 'API key not found.',
  projectNameTaken: 'A project with this name already exists.',
  shareLinkNotFound: 'Share link not found.',
  channelNotFound: 'Channel not found.',
  tooManyChannels: 'This project has as many channels as it may have (20).',
  channelUrl:
    "url is not a webhook of this kind: Discord https://discord.com/api/webhooks/<id>/<token>, Slack https://hooks.slack.com/services/…, slack-app the channel's link https://<workspace>.slack.com/archives/<channel id>, Teams a workflow URL (*.logic.azure.com, *.environment.api.powerplatform.com), webhook an https:// URL.",
  channelToken: 'token is for slack-app channels only.',
  channelThread: 'thread_id is for discord channels only.',
  recordNotFound: 'Record not found.',
  testNotFound: 'Test not found.',
  methodNotAllowed: 'Method not allowed.',
  hostRequired: 'A Host header is required.',
  badUrl: 'The request path is not a valid URL.',
  uriTooLong: 'The request path is too long.',
  requestTimeout: 'Request timeout.',
  headersTooLarge: 'Request headers are too large.',
  rateLimited: 'Too many requests: retry after the number of seconds in Retry-After.',
  shuttingDown: 'The server is shutting down: retry in a moment.',
  databaseUnavailable: 'The database is unavailable: retry in a moment.',
  storageFull: "The server's storage is full: nothing was stored; retry later.",
  flushFailed:
    'The server could not flush its database to disk and refuses writes until it is restarted: retry later.',
  readBudget: `buckets: this range cut into this many buckets would read more than ${Limits.planReadsMax.toLocaleString('en')} statistics cells; ask for fewer buckets or a shorter range (from, to).`,
  readTimeout:
    'The query took longer than the server allows: ask for a shorter range or fewer buckets, or retry later.',
  projectBusy:
    'Too many reads of this project are in progress: retry after the number of seconds in Retry-After.',
} as const;
