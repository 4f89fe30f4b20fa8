import pino, { type Logger } from 'pino';
import type { LogLevel } from './config.js';
import { logRedaction } from './log-redaction.js';

/**
 * The application's logger (pino, JSON lines on stdout). Secrets never reach its output: request
 * headers that carry keys are left out, outside services' messages are redacted before they are
 * logged (server/outbound), and every line is scrubbed of tokens, keys and the configured secrets
 * as it is written (log-redaction.ts), whatever its level.
 */
export function createLogger(
  level: LogLevel,
  secrets: readonly (string | undefined)[] = [],
): Logger {
  return pino({
    level,
    redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
    hooks: { streamWrite: logRedaction(secrets) },
  });
}

/**
 * Whether Fastify gets the logger too, for a line per request. Only at `debug` and `trace`: a
 * logger attached to Fastify costs every request about 4 µs (a child logger and response
 * listeners), some 12 % of a page view, whether it logs or not.
 */
export const logsRequests = (level: LogLevel): boolean => level === 'debug' || level === 'trace';
