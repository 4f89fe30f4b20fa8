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
  createShareLink: '/stats/create-share-link',
  getShareLinks: '/stats/get-share-links',
  revokeShareLink: '/stats/revoke-share-link',
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
