import { AdminError } from '../../../contract/admin.js';
import { OwnError, SpecError } from '../../../contract/error-texts.js';
import { Areas, Paths } from '../../../contract/paths.js';
import { nulText } from '../../../contract/text-rule.js';

/**
 * What the OpenAPI document says of each endpoint beyond its request schema (which comes from
 * the route's zod schema): a summary, the success answer with an example, and every error
 * status with its verbatim `error` texts.
 */
export interface EndpointDoc {
  summary: string;
  tag: 'Email forwarding' | 'Site' | 'Account' | 'Statistics' | 'Health' | 'Admin';
  auth: 'api-key' | 'admin' | 'none';
  success: { status: number; example: unknown };
  errors: Record<number, string[]>;
}

const ID = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const AT = '2026-11-24T10:00:00.000Z';
const BAD = [SpecError.invalidBody];
const INTERNAL = [SpecError.internal];
const STATS_401 = [SpecError.unauthorizedStats];
const FORBIDDEN = [SpecError.forbiddenProject, OwnError.ingestOnly];
const READ_BACK_400 = [SpecError.projectIdRequired, SpecError.invalidBody];
const site = {
  bio: 'Builds things.',
  avatar_url: 'https://example.com/me.png',
  location: null,
  mood: '🚀',
  theme_id: 'classic',
  visibility: true,
  blocks: [{ id: ID, type: 'link', content: 'https://example.com', enabled: true }],
};

export const ENDPOINT_DOCS: Record<string, EndpointDoc> = {
  [`GET ${Paths.forwardingStatus}`]: {
    summary: 'E1 Read forwarding status',
    tag: 'Email forwarding',
    auth: 'api-key',
    success: { status: 200, example: { enabled: true, email: 'me@example.com' } },
    errors: { 401: [SpecError.unauthorizedForwarding], 500: INTERNAL },
  },
  [`POST ${Paths.forwardingToggle}`]: {
    summary: 'E2 Enable or disable forwarding',
    tag: 'Email forwarding',
    auth: 'api-key',
    success: { status: 200, example: { success: true } },
    errors: {
      400: [SpecError.emailRequired, SpecError.invalidBody],
      401: [SpecError.unauthorizedForwarding],
      404: [SpecError.profileNotFound],
      500: [SpecError.forwardingSyncFailed, SpecError.internal],
    },
  },
  [`POST ${Paths.toggleSiteVisibility}`]: {
    summary: 'E3 Flip site visibility',
    tag: 'Site',
    auth: 'api-key',
    success: { status: 200, example: { success: true, newStatus: true } },
    errors: { 400: BAD, 401: [SpecError.unauthorizedSite], 500: [SpecError.visibilityFailed] },
  },
  [`POST ${Paths.updateSiteConfiguration}`]: {
    summary: 'E4 Update site configuration (partial)',
    tag: 'Site',
    auth: 'api-key',
    success: { status: 200, example: { success: true, site } },
    errors: {
      400: BAD,
      401: [SpecError.unauthorizedSite],
      500: [SpecError.siteConfigurationFailed],
    },
  },
  [`GET ${Paths.getSiteConfiguration}`]: {
    summary: 'Read the site configuration',
    tag: 'Site',
    auth: 'api-key',
    success: { status: 200, example: site },
    errors: { 401: [SpecError.unauthorizedSite], 500: INTERNAL },
  },
  [`GET ${Paths.getSiteStatus}`]: {
    summary: "Read the site's visibility (the hosted service's operation)",
    tag: 'Site',
    auth: 'api-key',
    success: { status: 200, example: { enabled: true } },
    errors: { 401: [SpecError.unauthorizedSite], 500: INTERNAL },
  },
  [`GET ${Paths.getThemes}`]: {
    summary: 'List the themes (no key needed)',
    tag: 'Site',
    auth: 'none',
    success: { status: 200, example: { themes: [{ id: 'classic', name: 'Classic' }] } },
    errors: { 500: INTERNAL },
  },
  [`POST ${Paths.updateDisplayName}`]: {
    summary: 'E5 Set the display name',
    tag: 'Account',
    auth: 'api-key',
    success: {
      status: 200,
      example: { success: true, display_name: 'alice', alias: 'alice@example.com' },
    },
    errors: {
      400: [
        OwnError.displayNameMissing,
        OwnError.displayNameLength,
        OwnError.displayNameReserved,
        nulText('display_name'),
      ],
      401: [SpecError.unauthorizedSite],
      409: [SpecError.displayNameTaken],
      500: INTERNAL,
    },
  },
  [`GET ${Paths.getDisplayName}`]: {
    summary: 'Read the display name and alias',
    tag: 'Account',
    auth: 'api-key',
    success: { status: 200, example: { display_name: 'alice', alias: 'alice@example.com' } },
    errors: { 401: [SpecError.unauthorizedSite], 500: INTERNAL },
  },
  [`GET ${Paths.getApiKeys}`]: {
    summary: "List the account's API keys (never a key or its hash)",
    tag: 'Account',
    auth: 'api-key',
    success: {
      status: 200,
      example: {
        keys: [
          {
            id: ID,
            label: 'ci',
            prefix: 'cis_AbCd',
            scope: 'ingest',
            projectIds: null,
            created_at: AT,
            last_used_at: null,
          },
        ],
      },
    },
    errors: { 401: STATS_401, 403: [OwnError.ingestOnly], 500: INTERNAL },
  },
  [`POST ${Paths.createApiKey}`]: {
    summary: 'Create an API key (shown once)',
    tag: 'Account',
    auth: 'api-key',
    success: {
      status: 201,
      example: { keyId: ID, apiKey: 'cis_…', label: 'ci', scope: 'ingest', projectIds: null },
    },
    errors: { 400: BAD, 401: STATS_401, 403: FORBIDDEN, 500: INTERNAL },
  },
  [`POST ${Paths.revokeApiKey}`]: {
    summary: 'Revoke one of your API keys',
    tag: 'Account',
    auth: 'api-key',
    success: { status: 200, example: { success: true } },
    errors: {
      400: BAD,
      401: STATS_401,
      403: [OwnError.ingestOnly],
      404: [OwnError.apiKeyNotFound],
      500: INTERNAL,
    },
  },
  [`GET ${Paths.getProjects}`]: {
    summary: 'E6 List projects',
    tag: 'Statistics',
    auth: 'api-key',
    success: { status: 200, example: { projects: [{ id: ID, name: 'web', created_at: AT }] } },
    errors: { 401: STATS_401, 500: INTERNAL },
  },
  [`POST ${Paths.createProject}`]: {
    summary: 'Create a project',
    tag: 'Statistics',
    auth: 'api-key',
    success: { status: 201, example: { id: ID, name: 'web', created_at: AT } },
    errors: {
      400: [
        AdminError.nameRequired,
        AdminError.nameInvalid,
        nulText('name'),
        SpecError.invalidBody,
      ],
      401: STATS_401,
      403: [OwnError.ingestOnly],
      409: [OwnError.projectNameTaken],
      500: INTERNAL,
    },
  },
  [`POST ${Paths.ingestEvents}`]: {
    summary: 'E7 Add an event (optionally notifying a Discord webhook)',
    tag: 'Statistics',
    auth: 'api-key',
    success: { status: 200, example: { message: 'Event created successfully.', id: ID } },
    errors: {
      400: [SpecError.invalidBody, OwnError.idempotencyKeyInvalid],
      401: STATS_401,
      403: [SpecError.forbiddenProject],
      422: [OwnError.idempotencyKeyReused],
      500: INTERNAL,
    },
  },
  [`POST ${Paths.ingestMetrics}`]: {
    summary: 'E8 Add a metric',
    tag: 'Statistics',
    auth: 'api-key',
    success: { status: 200, example: { message: 'Metric ingested successfully.', id: ID } },
    errors: {
      400: [
        SpecError.projectIdRequired,
        SpecError.metricPayloadRequired,
        OwnError.metricPayloadTooLarge,
        OwnError.metricPayloadNul,
        SpecError.invalidBody,
        OwnError.idempotencyKeyInvalid,
      ],
      401: STATS_401,
      403: [SpecError.forbiddenProject],
      422: [OwnError.idempotencyKeyReused],
      500: INTERNAL,
    },
  },
  [`GET ${Paths.getEvents}`]: {
    summary: "Read a project's events, newest first",
    tag: 'Statistics',
    auth: 'api-key',
    success: {
      status: 200,
      example: {
        events: [
          {
            id: ID,
            projectId: ID,
            eventType: 'build',
            description: null,
            payload: { status: 'success' },
            color: null,
            created_at: AT,
            notification: null,
          },
        ],
        nextCursor: null,
      },
    },
    errors: { 400: READ_BACK_400, 401: STATS_401, 403: FORBIDDEN, 500: INTERNAL },
  },
  [`GET ${Paths.getMetrics}`]: {
    summary: "Read a project's metrics, newest first",
    tag: 'Statistics',
    auth: 'api-key',
    success: {
      status: 200,
      example: {
        metrics: [{ id: ID, projectId: ID, payload: { duration_ms: 5400 }, created_at: AT }],
        nextCursor: null,
      },
    },
    errors: { 400: READ_BACK_400, 401: STATS_401, 403: FORBIDDEN, 500: INTERNAL },
  },
  [`GET ${Paths.getMetricKeys}`]: {
    summary: "List a project's metric series keys",
    tag: 'Statistics',
    auth: 'api-key',
    success: {
      status: 200,
      example: { keys: [{ key: 'duration_ms', count: 42, last_value: 5400, last_at: AT }] },
    },
    errors: { 400: READ_BACK_400, 401: STATS_401, 403: FORBIDDEN, 500: INTERNAL },
  },
  [`GET ${Paths.getMetricSeries}`]: {
    summary: 'One metric series in time buckets',
    tag: 'Statistics',
    auth: 'api-key',
    success: {
      status: 200,
      example: {
        key: 'duration_ms',
        from: AT,
        to: AT,
        buckets: [
          {
            start: AT,
            end: AT,
            count: 3,
            min: 1,
            max: 9,
            avg: 5,
            p50: 5,
            p95: 9,
            last: 9,
          },
        ],
      },
    },
    errors: { 400: READ_BACK_400, 401: STATS_401, 403: FORBIDDEN, 500: INTERNAL },
  },
  [`GET ${Paths.getBuildSummary}`]: {
    summary: 'Build outcomes in time buckets, and the success rate',
    tag: 'Statistics',
    auth: 'api-key',
    success: {
      status: 200,
      example: {
        from: AT,
        to: AT,
        buckets: [{ start: AT, end: AT, success: 9, failure: 1, cancelled: 0, other: 0 }],
        success_rate: 0.9,
      },
    },
    errors: { 400: READ_BACK_400, 401: STATS_401, 403: FORBIDDEN, 500: INTERNAL },
  },
  [`POST ${Paths.createShareLink}`]: {
    summary: "Create a read-only link to a project's statistics (shown once)",
    tag: 'Statistics',
    auth: 'api-key',
    success: {
      status: 201,
      example: { token: 'cis_share_…', url: 'https://stats.example.com/share/cis_share_…' },
    },
    errors: { 400: BAD, 401: STATS_401, 403: FORBIDDEN, 500: INTERNAL },
  },
  [`GET ${Paths.getShareLinks}`]: {
    summary: "List a project's share links",
    tag: 'Statistics',
    auth: 'api-key',
    success: {
      status: 200,
      example: { links: [{ id: ID, prefix: 'cis_share_AbCd', created_at: AT }] },
    },
    errors: { 400: READ_BACK_400, 401: STATS_401, 403: FORBIDDEN, 500: INTERNAL },
  },
  [`POST ${Paths.revokeShareLink}`]: {
    summary: 'Revoke a share link',
    tag: 'Statistics',
    auth: 'api-key',
    success: { status: 200, example: { success: true } },
    errors: {
      400: BAD,
      401: STATS_401,
      403: [OwnError.ingestOnly],
      404: [OwnError.shareLinkNotFound],
      500: INTERNAL,
    },
  },
  [`GET ${Paths.health}`]: {
    summary: 'Liveness, with a database round trip (no key needed)',
    tag: 'Health',
    auth: 'none',
    success: { status: 200, example: { status: 'ok' } },
    errors: { 503: ['Database unavailable.', OwnError.storageFull] },
  },
  [`POST ${Areas.admin}/accounts`]: {
    summary: 'Create an account with its first key',
    tag: 'Admin',
    auth: 'admin',
    success: { status: 201, example: { accountId: ID, apiKey: 'cis_…', keyId: ID } },
    errors: {
      400: [AdminError.labelInvalid, nulText('label'), SpecError.invalidBody],
      401: ['Unauthorized'],
    },
  },
  [`POST ${Areas.admin}/accounts/{accountId}/keys`]: {
    summary: 'Create a key for an account',
    tag: 'Admin',
    auth: 'admin',
    success: { status: 201, example: { keyId: ID, apiKey: 'cis_…' } },
    errors: { 400: BAD, 401: ['Unauthorized'], 404: [AdminError.accountNotFound] },
  },
  [`DELETE ${Areas.admin}/keys/{keyId}`]: {
    summary: 'Revoke a key (also when already revoked)',
    tag: 'Admin',
    auth: 'admin',
    success: { status: 204, example: undefined },
    errors: { 400: BAD, 401: ['Unauthorized'], 404: [AdminError.keyNotFound] },
  },
  [`POST ${Areas.admin}/accounts/{accountId}/projects`]: {
    summary: 'Create a project for an account',
    tag: 'Admin',
    auth: 'admin',
    success: { status: 201, example: { id: ID, name: 'web', created_at: AT } },
    errors: {
      400: [AdminError.nameRequired, AdminError.nameInvalid, nulText('name')],
      401: ['Unauthorized'],
      404: [AdminError.accountNotFound],
      409: [OwnError.projectNameTaken],
    },
  },
  [`GET ${Areas.admin}/accounts/{accountId}/projects`]: {
    summary: "List an account's projects",
    tag: 'Admin',
    auth: 'admin',
    success: { status: 200, example: { projects: [{ id: ID, name: 'web', created_at: AT }] } },
    errors: { 400: BAD, 401: ['Unauthorized'], 404: [AdminError.accountNotFound] },
  },
};

/** Every answer may also be these: the framework-level errors of our own. */
export const COMMON_ERRORS: Record<number, string[]> = {
  413: [OwnError.bodyTooLarge],
  415: [OwnError.unsupportedMediaType],
};
