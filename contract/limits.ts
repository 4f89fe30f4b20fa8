/** Field limits of the wire contract. The spec leaves them open; these are our decisions. */
export const Limits = {
  projectIdLength: 128,
  eventTypeLength: 100,
  descriptionLength: 2000,
  /** Serialised JSON of an event or metric payload, in UTF-8 bytes. */
  payloadBytes: 32 * 1024,
  /** Nesting of an event or metric payload: the object itself is level 1. */
  payloadDepth: 64,
  maxColor: 0xffffff,
  webhookUrlLength: 2048,
  webhookTitleLength: 256,
  webhookDescriptionLength: 4096,
  bioLength: 1000,
  locationLength: 100,
  moodLength: 32,
  themeIdLength: 64,
  urlLength: 2048,
  blocks: 100,
  blockContentLength: 2000,
  blockIdLength: 64,
  /** A link block's optional title (issue 28). */
  blockTitleLength: 120,
  emailLength: 254,
  displayNameMin: 3,
  displayNameMax: 32,
  labelLength: 100,
  projectNameLength: 100,
  projectsPerKey: 100,
  keyIdLength: 64,
  bucketsDefault: 100,
  bucketsMax: 1000,
  pageSizeDefault: 50,
  pageSizeMax: 200,
  /** GET /stats/get-metric-keys: keys per page. */
  keysPageDefault: 200,
  keysPageMax: 1000,
  /** Statistics cells one series or build summary may read (server/domain/time-buckets.ts). */
  planReadsMax: 50_000,
} as const;
