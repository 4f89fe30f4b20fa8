import pino, { type Logger } from 'pino';
import type { LogLevel } from './config.js';

/**
 * The application's logger (pino, JSON lines on stdout). Secrets never reach it: request headers
 * that carry keys are redacted, and outside services' messages are redacted before they are
 * logged (server/outbound).
 */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
  });
}

/**
 * Whether Fastify gets the logger too, for a line per request. Only at `debug` and `trace`: a
 * logger attached to Fastify costs every request about 4 µs (a child logger and response
 * listeners), some 12 % of a page view, whether it logs or not.
 */
export const logsRequests = (level: LogLevel): boolean => level === 'debug' || level === 'trace';
