import { z } from 'zod';
import { DEFAULT_INLINE_FLUSH_MAX_MS } from './storage/sqlite/flush-timing.js';

/**
 * Server configuration, read from the environment once at start-up and validated with zod.
 * An empty variable counts as unset, so `ADMIN_TOKEN=` in a compose file turns the admin API off.
 */
const integer = (name: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${name} must be an integer` })
    .int(`${name} must be an integer`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);

const HOSTNAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** What an HTTP header can carry without escaping: visible ASCII, no spaces. */
const HEADER_TOKEN = /^[\x21-\x7e]{1,512}$/;

const secret = (name: string) =>
  z.string().regex(HEADER_TOKEN, `${name} must be visible ASCII without spaces`);

/** An http(s) URL without query or fragment; a trailing slash is dropped. */
const baseUrl = (name: string) =>
  z
    .string()
    .refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'https:' || url.protocol === 'http:') && !url.search && !url.hash;
      } catch {
        return false;
      }
    }, `${name} must be an http(s) URL`)
    .transform((value) => value.replace(/\/+$/, ''));

/** Scheme, host and port only, e.g. https://discord.com. */
const origin = (name: string) =>
  baseUrl(name).refine(
    (value) => new URL(value).origin === value,
    `${name} must be an origin such as https://discord.com (no path)`,
  );

/** A PostgreSQL connection URL, e.g. postgres://user:password@host:5432/database. */
function isPostgresUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.host !== '';
  } catch {
    return false;
  }
}

/** The SQLite file when neither DATABASE_URL nor DATABASE_PATH is set. */
const DEFAULT_DATABASE_PATH = './data/stats.db';

const EnvSchema = z
  .object({
    PORT: integer('PORT', 0, 65535).default(3000),
    HOST: z.string().default('127.0.0.1'),
    DATABASE_PATH: z
      .string()
      .refine((path) => !path.startsWith(':'), 'DATABASE_PATH must be a file path')
      .optional(),
    DATABASE_URL: z
      .string()
      .refine(isPostgresUrl, 'DATABASE_URL must be a postgres:// or postgresql:// URL')
      .optional(),
    DATABASE_REPLICA_URL: z
      .string()
      .refine(isPostgresUrl, 'DATABASE_REPLICA_URL must be a postgres:// or postgresql:// URL')
      .optional(),
    REPLICA_MAX_LAG_SECONDS: integer('REPLICA_MAX_LAG_SECONDS', 1, 3600).default(5),
    MAIL_DOMAIN: z
      .string()
      .transform((domain) => domain.toLowerCase())
      .refine((domain) => HOSTNAME.test(domain), 'MAIL_DOMAIN must be a domain name')
      .default('localhost'),
    ADMIN_TOKEN: z
      .string()
      .regex(HEADER_TOKEN, 'ADMIN_TOKEN must be visible ASCII without spaces')
      .optional(),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        error: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
      })
      .default('info'),
    BODY_LIMIT: integer('BODY_LIMIT', 1024, 100 * 1024 * 1024).default(1024 * 1024),
    REQUEST_TIMEOUT_MS: integer('REQUEST_TIMEOUT_MS', 100, 3_600_000).default(30_000),
    HEADERS_TIMEOUT_MS: integer('HEADERS_TIMEOUT_MS', 100, 3_600_000).default(10_000),
    RATE_LIMIT_INGEST_PER_MINUTE: integer('RATE_LIMIT_INGEST_PER_MINUTE', 0, 10_000_000).default(
      6_000,
    ),
    RATE_LIMIT_OTHER_PER_MINUTE: integer('RATE_LIMIT_OTHER_PER_MINUTE', 0, 10_000_000).default(
      1_200,
    ),
    RATE_LIMIT_INGEST_BURST: integer('RATE_LIMIT_INGEST_BURST', 1, 10_000_000).default(1_000),
    RATE_LIMIT_OTHER_BURST: integer('RATE_LIMIT_OTHER_BURST', 1, 10_000_000).default(60),
    RATE_LIMIT_OTHER_CONCURRENCY: integer('RATE_LIMIT_OTHER_CONCURRENCY', 0, 10_000).default(2),
    RATE_LIMIT_BAD_KEYS_PER_MINUTE: integer(
      'RATE_LIMIT_BAD_KEYS_PER_MINUTE',
      0,
      10_000_000,
    ).default(600),
    READ_TIMEOUT_MS: integer('READ_TIMEOUT_MS', 0, 3_600_000).default(10_000),
    READ_CONNECTIONS: integer('READ_CONNECTIONS', 1, 100).default(4),
    HEAVY_READS_PER_PROJECT: integer('HEAVY_READS_PER_PROJECT', 0, 1000).default(2),
    HEAVY_READS_QUEUE: integer('HEAVY_READS_QUEUE', 0, 10_000).default(8),
    SHARE_RATE_PER_MINUTE: integer('SHARE_RATE_PER_MINUTE', 0, 10_000_000).default(600),
    SHARE_BURST: integer('SHARE_BURST', 1, 10_000_000).default(60),
    SHARE_RATE_PER_ADDRESS_PER_MINUTE: integer(
      'SHARE_RATE_PER_ADDRESS_PER_MINUTE',
      0,
      10_000_000,
    ).default(300),
    SHARE_ADDRESS_BURST: integer('SHARE_ADDRESS_BURST', 1, 10_000_000).default(30),
    SHARE_CACHE_TTL_MS: integer('SHARE_CACHE_TTL_MS', 0, 600_000).default(5_000),
    PUBLIC_URL: baseUrl('PUBLIC_URL').optional(),
    BASE_PATH: z
      .string()
      .regex(/^\//, 'BASE_PATH must start with / (for example /ci-stats)')
      .refine((path) => path.length === 1 || !path.endsWith('/'), 'BASE_PATH must not end with /')
      .regex(
        /^(?:\/[A-Za-z0-9._~-]+)+$|^\/$/,
        'BASE_PATH must be path segments of letters, digits and . _ ~ - (for example /ci-stats)',
      )
      .refine(
        (path) => !path.split('/').some((segment) => segment === '.' || segment === '..'),
        'BASE_PATH must not hold . or .. segments',
      )
      .optional(),
    TRUST_PROXY: z
      .string()
      .regex(
        /^(?:true|\d{1,2}|[0-9a-fA-F.:/, ]+)$/,
        'TRUST_PROXY must be true, a number of hops, or addresses/CIDR ranges separated by commas',
      )
      .optional(),
    BOOTSTRAP_API_KEY: z
      .string()
      .regex(HEADER_TOKEN, 'BOOTSTRAP_API_KEY must be visible ASCII without spaces')
      .optional(),
    SECRETS_KEY: secret('SECRETS_KEY')
      .min(32, 'SECRETS_KEY must be at least 32 characters (for example `openssl rand -hex 32`)')
      .optional(),
    SECRETS_KEY_FILE: z.string().optional(),

    DISCORD_API_ORIGIN: origin('DISCORD_API_ORIGIN').default('https://discord.com'),
    SLACK_WEBHOOK_ORIGIN: origin('SLACK_WEBHOOK_ORIGIN').default('https://hooks.slack.com'),
    SLACK_API_ORIGIN: origin('SLACK_API_ORIGIN').default('https://slack.com'),
    // A Slack app's client id is digits and a dot (`1234567890.0987654321`); its secret, hex.
    SLACK_CLIENT_ID: z
      .string()
      .regex(
        /^[0-9]{1,30}\.[0-9]{1,30}$/,
        'SLACK_CLIENT_ID must be a Slack app client id (digits.digits)',
      )
      .optional(),
    SLACK_CLIENT_SECRET: secret('SLACK_CLIENT_SECRET').optional(),
    TEAMS_WEBHOOK_ORIGIN: origin('TEAMS_WEBHOOK_ORIGIN').optional(),
    WEBHOOK_ALLOWED_HOSTS: z
      .string()
      .regex(
        /^[A-Za-z0-9.:[\]-]+(?:\s*,\s*[A-Za-z0-9.:[\]-]+)*$/,
        'WEBHOOK_ALLOWED_HOSTS must be host names or host:port, separated by commas',
      )
      .optional(),
    FORWARDING_PROVIDER: z
      .enum(['none', 'improvmx'], { error: 'FORWARDING_PROVIDER must be none or improvmx' })
      .default('none'),
    IMPROVMX_API_KEY: secret('IMPROVMX_API_KEY').optional(),
    IMPROVMX_DOMAIN: z
      .string()
      .refine((domain) => HOSTNAME.test(domain), 'IMPROVMX_DOMAIN must be a domain name')
      .optional(),
    IMPROVMX_API_URL: baseUrl('IMPROVMX_API_URL').default('https://api.improvmx.com/v3'),
    CONTACTS_PROVIDER: z
      .enum(['none', 'brevo'], { error: 'CONTACTS_PROVIDER must be none or brevo' })
      .default('none'),
    BREVO_API_KEY: secret('BREVO_API_KEY').optional(),
    BREVO_API_URL: baseUrl('BREVO_API_URL').default('https://api.brevo.com/v3'),
    BREVO_LIST_ID: integer('BREVO_LIST_ID', 1, Number.MAX_SAFE_INTEGER).optional(),
    BREVO_ALIAS_ATTRIBUTE: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]{0,49}$/, 'BREVO_ALIAS_ATTRIBUTE must be an attribute name like ALIAS')
      .optional(),
    DURABILITY: z
      .enum(['full', 'normal'], { error: 'DURABILITY must be full or normal' })
      .default('full'),
    INLINE_FLUSH_MAX_MS: integer('INLINE_FLUSH_MAX_MS', 0, 1_000).default(
      DEFAULT_INLINE_FLUSH_MAX_MS,
    ),
    BACKUP_DIR: z.string().min(1, 'BACKUP_DIR must name a directory').optional(),
    BACKUP_EVERY: z
      .string()
      .regex(/^[1-9]\d{0,5}[smhd]$/, 'BACKUP_EVERY must be a number and a unit: 30m, 6h, 1d')
      .default('1d'),
    BACKUP_KEEP: integer('BACKUP_KEEP', 1, 10_000).default(7),
    OUTBOUND_TIMEOUT_MS: integer('OUTBOUND_TIMEOUT_MS', 100, 120_000).default(10_000),
    OUTBOX_MAX_ATTEMPTS: integer('OUTBOX_MAX_ATTEMPTS', 1, 100).default(15),
    OUTBOX_RETRY_BASE_MS: integer('OUTBOX_RETRY_BASE_MS', 10, 3_600_000).default(2_000),
  })
  .superRefine((env, ctx) => {
    // Two databases named: refuse rather than guess which one the operator meant.
    if (env.DATABASE_URL !== undefined && env.DATABASE_PATH !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_URL'],
        message:
          'DATABASE_URL and DATABASE_PATH are both set: set DATABASE_URL for PostgreSQL or DATABASE_PATH for SQLite, not both',
      });
    }
    // A replica of what? SQLite has none: refused rather than ignored.
    if (env.DATABASE_REPLICA_URL !== undefined && env.DATABASE_URL === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_REPLICA_URL'],
        message:
          'DATABASE_REPLICA_URL needs DATABASE_URL: a read replica is of a PostgreSQL primary, SQLite has none',
      });
    }
    // Scheduled backups are SQLite's online backup; PostgreSQL has pg_dump and its own tools.
    if (env.BACKUP_DIR !== undefined && env.DATABASE_URL !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['BACKUP_DIR'],
        message:
          'BACKUP_DIR works with SQLite only: on PostgreSQL schedule pg_dump (npm run admin -- backup) instead',
      });
    }
    // PUBLIC_URL names where the server is seen from outside: with a base path, at that path.
    if (env.BASE_PATH !== undefined && env.BASE_PATH !== '/' && env.PUBLIC_URL !== undefined) {
      const path = new URL(env.PUBLIC_URL).pathname.replace(/\/+$/, '');
      if (path !== '' && path !== env.BASE_PATH) {
        ctx.addIssue({
          code: 'custom',
          path: ['PUBLIC_URL'],
          message:
            'PUBLIC_URL must be an origin (the base path is added) or end with BASE_PATH, not another path',
        });
      }
    }
    // Node refuses a headers timeout longer than the whole request's.
    if (env.HEADERS_TIMEOUT_MS > env.REQUEST_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['HEADERS_TIMEOUT_MS'],
        message: 'HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS',
      });
    }
    // A provider without its key could only fail later, request by request: refuse to start.
    if (env.FORWARDING_PROVIDER === 'improvmx' && !env.IMPROVMX_API_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['IMPROVMX_API_KEY'],
        message: 'IMPROVMX_API_KEY is required when FORWARDING_PROVIDER=improvmx',
      });
    }
    // Half a Slack app could only fail at its first installation: refuse to start.
    if ((env.SLACK_CLIENT_ID === undefined) !== (env.SLACK_CLIENT_SECRET === undefined)) {
      const [missing, set] =
        env.SLACK_CLIENT_ID === undefined
          ? ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET']
          : ['SLACK_CLIENT_SECRET', 'SLACK_CLIENT_ID'];
      ctx.addIssue({
        code: 'custom',
        path: [missing],
        message: `${missing} is required with ${set}: they go together, set both or neither`,
      });
    }
    if (env.CONTACTS_PROVIDER === 'brevo' && !env.BREVO_API_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['BREVO_API_KEY'],
        message: 'BREVO_API_KEY is required when CONTACTS_PROVIDER=brevo',
      });
    }
  });

export type LogLevel = z.infer<typeof EnvSchema>['LOG_LEVEL'];

export type ForwardingConfig =
  | { provider: 'none' }
  | { provider: 'improvmx'; apiKey: string; domain: string; apiUrl: string };

export type ContactsConfig =
  | { provider: 'none' }
  | {
      provider: 'brevo';
      apiKey: string;
      apiUrl: string;
      listId: number | undefined;
      aliasAttribute: string | undefined;
    };

export interface OutboundConfig {
  /** Where chat notifications go, whatever host the client's webhook URL named. */
  discordApiOrigin: string;
  /** Where Slack channels' messages go (the path of their URL on this origin). */
  slackWebhookOrigin: string;
  /**
   * Where Slack app channels' Web API calls go (chat.postMessage, chat.update), and Slack's OAuth
   * installation (/oauth/v2/authorize in the browser, /api/oauth.v2.access from the server).
   */
  slackApiOrigin: string;
  /** When set, Teams channels' messages go here (tests); else to their URL's own host. */
  teamsWebhookOrigin: string | undefined;
  /**
   * Hosts (or host:port) a generic webhook channel may name although they resolve to private
   * addresses (a receiver inside the operator's network); plain HTTP is accepted for them.
   */
  webhookAllowedHosts: string[];
  /** Total time for one outbound request, connection included. */
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
}

export interface Config {
  port: number;
  host: string;
  /** The SQLite file; unused when `databaseUrl` is set. */
  databasePath: string;
  /** A PostgreSQL URL (DATABASE_URL): the server runs on PostgreSQL instead of SQLite. */
  databaseUrl: string | undefined;
  /**
   * A streaming replica of that database (DATABASE_REPLICA_URL; undefined: none) for the pages'
   * and `/stats/*` reads, used while it is at most `maxLagSeconds` behind.
   */
  replica: { url: string | undefined; maxLagSeconds: number };
  mailDomain: string;
  adminToken: string | undefined;
  /**
   * Seals the webhook tokens that outbox jobs hold while they wait (outbox/secret-box.ts);
   * every replica of one database must share it.
   */
  secretsKey: string | undefined;
  /**
   * Where the key is kept when SECRETS_KEY is unset (secrets/secrets-key.ts): by default, on
   * SQLite, `secrets.key` beside the database file, made at first start.
   */
  secretsKeyFile: string | undefined;
  logLevel: LogLevel;
  bodyLimit: number;
  /** The whole request, headers and body, must arrive within this (else 408). */
  requestTimeoutMs: number;
  /** The request's headers must arrive within this (else 408). */
  headersTimeoutMs: number;
  /**
   * Per API key, two token buckets: each holds `*Burst` requests and refills at `*PerMinute`
   * (0: no limit). Per client address, requests with a wrong key (`badKeysPerMinute`, 0: no limit).
   */
  rateLimits: {
    ingestPerMinute: number;
    otherPerMinute: number;
    ingestBurst: number;
    otherBurst: number;
    /** Per API key, requests of the other budget in progress at once (0: no cap). */
    otherConcurrency: number;
    badKeysPerMinute: number;
  };
  /**
   * PostgreSQL's statistics reads: their own pool of `connections`, each statement cancelled after
   * `timeoutMs` (statement_timeout; 0: never). SQLite has neither (its reads are bounded by the
   * read budget and the per-project caps).
   */
  reads: { connections: number; timeoutMs: number };
  /**
   * Fair sharing and floods (docs/security.md): per project, heavy reads at once (0: no cap) and
   * waiting beyond them; per share token and per client address, share pages and badges per
   * minute and at once (0: no limit); how long a share page or badge is served from memory (0:
   * never).
   */
  heavyReads: {
    perProject: number;
    queue: number;
    share: {
      perTokenPerMinute: number;
      tokenBurst: number;
      perAddressPerMinute: number;
      addressBurst: number;
    };
    cacheTtlMs: number;
  };
  /**
   * Where the server is served from on its host (BASE_PATH): '' at the root, else `/ci-stats`
   * (no trailing slash). Every route is under it; pages add it to every address they write.
   */
  basePath: string;
  /**
   * Base URL of the public pages (canonical and share links), the base path included (PUBLIC_URL's
   * origin + BASE_PATH); unset: taken from each request.
   */
  publicUrl: string | undefined;
  /**
   * Which proxies' X-Forwarded-* headers to believe (client address, protocol, host): Fastify's
   * `trustProxy`. Unset: none.
   */
  trustProxy: boolean | string | ((address: string, hop: number) => boolean) | undefined;
  bootstrapApiKey: string | undefined;
  /** full: a 2xx means the write is on disk. normal: it is committed, flushed moments later. */
  durability: 'full' | 'normal';
  /**
   * SQLite with DURABILITY=full: the log is flushed on the event loop while its flushes average at
   * most this (ms), else in the thread pool; 0: always in the thread pool (flush-timing.ts).
   */
  inlineFlushMaxMs: number;
  forwarding: ForwardingConfig;
  contacts: ContactsConfig;
  outbound: OutboundConfig;
  /**
   * The operator's Slack app (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET): owners install it into their
   * workspace from a project's Channels page ("Add to Slack"); undefined: no such button.
   */
  slackApp: { clientId: string; clientSecret: string } | undefined;
  /** Scheduled backups of the SQLite database (BACKUP_DIR); undefined: none. */
  backup: { dir: string; everyMs: number; keep: number } | undefined;
}

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** `30m`, `6h`, `1d` in milliseconds. */
const durationMs = (text: string) =>
  Number(text.slice(0, -1)) * UNIT_MS[text.slice(-1) as keyof typeof UNIT_MS];

/** A configuration problem, named by the variable at fault. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

function parseTrustProxy(value: string | undefined): Config['trustProxy'] {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  // A number of hops: trust the first `hops` proxies in front of us, as Fastify does for a number.
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = EnvSchema.safeParse(set);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'environment');
    // Messages name the variable but never echo its value: some of them are secrets.
    const message = issue?.message.startsWith(variable) ? issue.message : `${variable} is invalid`;
    throw new ConfigError(variable, message);
  }
  const e = parsed.data;
  // `/` is the root, as unset is.
  const basePath = e.BASE_PATH === undefined || e.BASE_PATH === '/' ? '' : e.BASE_PATH;
  return {
    port: e.PORT,
    host: e.HOST,
    databasePath: e.DATABASE_PATH ?? DEFAULT_DATABASE_PATH,
    databaseUrl: e.DATABASE_URL,
    replica: { url: e.DATABASE_REPLICA_URL, maxLagSeconds: e.REPLICA_MAX_LAG_SECONDS },
    mailDomain: e.MAIL_DOMAIN,
    adminToken: e.ADMIN_TOKEN,
    secretsKey: e.SECRETS_KEY,
    secretsKeyFile: e.SECRETS_KEY_FILE,
    logLevel: e.LOG_LEVEL,
    bodyLimit: e.BODY_LIMIT,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    rateLimits: {
      ingestPerMinute: e.RATE_LIMIT_INGEST_PER_MINUTE,
      otherPerMinute: e.RATE_LIMIT_OTHER_PER_MINUTE,
      ingestBurst: e.RATE_LIMIT_INGEST_BURST,
      otherBurst: e.RATE_LIMIT_OTHER_BURST,
      otherConcurrency: e.RATE_LIMIT_OTHER_CONCURRENCY,
      badKeysPerMinute: e.RATE_LIMIT_BAD_KEYS_PER_MINUTE,
    },
    reads: { connections: e.READ_CONNECTIONS, timeoutMs: e.READ_TIMEOUT_MS },
    heavyReads: {
      perProject: e.HEAVY_READS_PER_PROJECT,
      queue: e.HEAVY_READS_QUEUE,
      share: {
        perTokenPerMinute: e.SHARE_RATE_PER_MINUTE,
        tokenBurst: e.SHARE_BURST,
        perAddressPerMinute: e.SHARE_RATE_PER_ADDRESS_PER_MINUTE,
        addressBurst: e.SHARE_ADDRESS_BURST,
      },
      cacheTtlMs: e.SHARE_CACHE_TTL_MS,
    },
    basePath,
    // Without a base path PUBLIC_URL is taken as it is written, as before BASE_PATH existed.
    publicUrl:
      e.PUBLIC_URL === undefined || basePath === ''
        ? e.PUBLIC_URL
        : `${new URL(e.PUBLIC_URL).origin}${basePath}`,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    bootstrapApiKey: e.BOOTSTRAP_API_KEY,
    durability: e.DURABILITY,
    inlineFlushMaxMs: e.INLINE_FLUSH_MAX_MS,
    forwarding:
      e.FORWARDING_PROVIDER === 'improvmx' && e.IMPROVMX_API_KEY
        ? {
            provider: 'improvmx',
            apiKey: e.IMPROVMX_API_KEY,
            domain: e.IMPROVMX_DOMAIN ?? e.MAIL_DOMAIN,
            apiUrl: e.IMPROVMX_API_URL,
          }
        : { provider: 'none' },
    contacts:
      e.CONTACTS_PROVIDER === 'brevo' && e.BREVO_API_KEY
        ? {
            provider: 'brevo',
            apiKey: e.BREVO_API_KEY,
            apiUrl: e.BREVO_API_URL,
            listId: e.BREVO_LIST_ID,
            aliasAttribute: e.BREVO_ALIAS_ATTRIBUTE,
          }
        : { provider: 'none' },
    outbound: {
      discordApiOrigin: e.DISCORD_API_ORIGIN,
      slackWebhookOrigin: e.SLACK_WEBHOOK_ORIGIN,
      slackApiOrigin: e.SLACK_API_ORIGIN,
      teamsWebhookOrigin: e.TEAMS_WEBHOOK_ORIGIN,
      webhookAllowedHosts: (e.WEBHOOK_ALLOWED_HOSTS ?? '')
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
      timeoutMs: e.OUTBOUND_TIMEOUT_MS,
      maxAttempts: e.OUTBOX_MAX_ATTEMPTS,
      retryBaseMs: e.OUTBOX_RETRY_BASE_MS,
    },
    slackApp:
      e.SLACK_CLIENT_ID !== undefined && e.SLACK_CLIENT_SECRET !== undefined
        ? { clientId: e.SLACK_CLIENT_ID, clientSecret: e.SLACK_CLIENT_SECRET }
        : undefined,
    backup:
      e.BACKUP_DIR === undefined
        ? undefined
        : { dir: e.BACKUP_DIR, everyMs: durationMs(e.BACKUP_EVERY), keep: e.BACKUP_KEEP },
  };
}

/** The secrets the configuration holds, which no log line may show (log-redaction.ts). */
export function configuredSecrets(config: Config): string[] {
  const secrets = [config.adminToken, config.bootstrapApiKey, config.secretsKey];
  if (config.forwarding.provider === 'improvmx') secrets.push(config.forwarding.apiKey);
  if (config.contacts.provider === 'brevo') secrets.push(config.contacts.apiKey);
  if (config.slackApp) secrets.push(config.slackApp.clientSecret);
  return secrets.filter((secret): secret is string => secret !== undefined);
}
