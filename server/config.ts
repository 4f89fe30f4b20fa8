import { z } from 'zod';

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

const EnvSchema = z.object({
  PORT: integer('PORT', 0, 65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_PATH: z
    .string()
    .refine((path) => !path.startsWith(':'), 'DATABASE_PATH must be a file path')
    .default('./data/stats.db'),
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
  BOOTSTRAP_API_KEY: z
    .string()
    .regex(HEADER_TOKEN, 'BOOTSTRAP_API_KEY must be visible ASCII without spaces')
    .optional(),
});

export type LogLevel = z.infer<typeof EnvSchema>['LOG_LEVEL'];

export interface Config {
  port: number;
  host: string;
  databasePath: string;
  mailDomain: string;
  adminToken: string | undefined;
  logLevel: LogLevel;
  bodyLimit: number;
  bootstrapApiKey: string | undefined;
}

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
  return {
    port: e.PORT,
    host: e.HOST,
    databasePath: e.DATABASE_PATH,
    mailDomain: e.MAIL_DOMAIN,
    adminToken: e.ADMIN_TOKEN,
    logLevel: e.LOG_LEVEL,
    bodyLimit: e.BODY_LIMIT,
    bootstrapApiKey: e.BOOTSTRAP_API_KEY,
  };
}
