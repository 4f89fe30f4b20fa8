/**
 * Every endpoint's path, as the server routes it and clients call it. The first segment is the
 * API area; the server mounts each area as one prefix with its own authentication text.
 */
export const Paths = {
  /** E1 */
  forwardingStatus: '/email-forwarding/email-forwarding-status',
  /** E2 */
  forwardingToggle: '/email-forwarding/email-forwarding-toggle',
  /** E3 */
  toggleSiteVisibility: '/pagesite/toggle-site-visibility',
  /** E4 */
  updateSiteConfiguration: '/pagesite/update-site-configuration',
  getSiteConfiguration: '/pagesite/get-site-configuration',
  /** `{ enabled }`: the site's visibility, as the hosted service answers it. */
  getSiteStatus: '/pagesite/get-site-status',
  /** Public: the theme catalogue. */
  getThemes: '/pagesite/get-themes',
  /** E5 */
  updateDisplayName: '/account/update-display-name',
  getDisplayName: '/account/get-display-name',
  getApiKeys: '/account/get-api-keys',
  createApiKey: '/account/create-api-key',
  revokeApiKey: '/account/revoke-api-key',
  /** E6 */
  getProjects: '/stats/get-projects',
  createProject: '/stats/create-project',
  /** E7 */
  ingestEvents: '/stats/ingest-events',
  /** E8 */
  ingestMetrics: '/stats/ingest-metrics',
  getEvents: '/stats/get-events',
  getMetrics: '/stats/get-metrics',
  getMetricKeys: '/stats/get-metric-keys',
  getMetricSeries: '/stats/get-metric-series',
  getBuildSummary: '/stats/get-build-summary',
  getProjectSummaries: '/stats/get-project-summaries',
  createShareLink: '/stats/create-share-link',
  getShareLinks: '/stats/get-share-links',
  revokeShareLink: '/stats/revoke-share-link',
  /** Notification channels (issue 30). */
  createChannel: '/stats/create-channel',
  getChannels: '/stats/get-channels',
  updateChannel: '/stats/update-channel',
  deleteChannel: '/stats/delete-channel',
  testChannel: '/stats/test-channel',
  getRetention: '/stats/get-retention',
  setRetention: '/stats/set-retention',
  pinRecord: '/stats/pin-record',
  /** Records out and back in (docs/export.md). */
  exportRecords: '/stats/export',
  importRecords: '/stats/import-records',
  /** Tests as data (docs/tests.md). */
  ingestTests: '/stats/ingest-tests',
  getTests: '/stats/get-tests',
  getTest: '/stats/get-test',
  getTestRuns: '/stats/get-test-runs',
  quarantineTest: '/stats/quarantine-test',
  unquarantineTest: '/stats/unquarantine-test',
  getQuarantine: '/stats/get-quarantine',
  getTestSettings: '/stats/get-test-settings',
  setTestSettings: '/stats/set-test-settings',
  health: '/healthz',
} as const;

/** An account's public page (HTML, or JSON with `Accept: application/json`). */
export const publicPagePath = (displayName: string): string => `/@${displayName}`;

export const Areas = {
  forwarding: '/email-forwarding',
  pagesite: '/pagesite',
  account: '/account',
  stats: '/stats',
  admin: '/admin',
} as const;

/**
 * The hosted service this API re-states serves the same operations under these prefixes; we
 * serve them as aliases (same handlers, same answers), so its clients only change the base URL.
 */
export const HostedAreas = {
  [Areas.forwarding]: '/api/email-forwarding',
  [Areas.pagesite]: '/api/slownetsite',
  [Areas.account]: '/api/account',
  [Areas.stats]: '/api/slowstats',
} as const;

/** A path as the hosted service names it: `/stats/get-projects` -> `/api/slowstats/get-projects`. */
export function hostedPath(path: string): string {
  for (const [area, hosted] of Object.entries(HostedAreas)) {
    if (path.startsWith(`${area}/`)) return `${hosted}${path.slice(area.length)}`;
  }
  throw new Error(`${path} has no hosted alias`);
}
