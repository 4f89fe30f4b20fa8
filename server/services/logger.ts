/**
 * What services log through: the shape of pino's methods, which Fastify's logger has, so that
 * services need not know Fastify.
 */
type LogMethod = (details: object, message: string) => void;

export interface Logger {
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}
