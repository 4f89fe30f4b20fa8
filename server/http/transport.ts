import { type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type {
  FastifyError,
  FastifyHttpOptions,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import type { Config } from '../config.js';
import { clientErrorHandler } from './client-errors.js';

/** Methods a route of ours can have; `Allow` lists those a path answers. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Every method the server implements somewhere (what a CONNECT is told). */
const SERVER_METHODS = 'GET, HEAD, POST, DELETE';

/**
 * How Node's HTTP server is set up: timeouts (a request, headers and body, must arrive within
 * REQUEST_TIMEOUT_MS, its headers within HEADERS_TIMEOUT_MS; otherwise 408), the Host header
 * checked by us (Node's own check answers a bare 400 without a body), and the framework's own
 * errors answered as ours.
 */
export function transportOptions(config: Config): FastifyHttpOptions<Server> {
  return {
    clientErrorHandler,
    requestTimeout: config.requestTimeoutMs,
    http: {
      requireHostHeader: false,
      headersTimeout: config.headersTimeoutMs,
      // How often Node looks for requests past their timeouts: a tenth of the shorter one.
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(1000, Math.floor(config.headersTimeoutMs / 10)),
      ),
    },
    // During a graceful close, requests still arriving on open connections get our 503.
    return503OnClosing: false,
    frameworkErrors,
  };
}

/** A bad percent-encoding, a parameter longer than the router takes: JSON like any error. */
function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return reply.code(414).send({ error: OwnError.uriTooLong });
  }
  if (error.code === 'FST_ERR_BAD_URL') return reply.code(400).send({ error: OwnError.badUrl });
  return reply.code(500).send({ error: SpecError.internal });
}

/** The methods `request`'s path answers to, e.g. `GET, HEAD`; empty when the path is unknown. */
export function allowedMethods(request: FastifyRequest): string[] {
  return METHODS.filter(
    (method) => request.server.findRoute({ method, url: request.url }) !== null,
  );
}

/**
 * Hooks on the root instance, before any context is registered so that every route inherits
 * them: the Host header (HTTP/1.1 requires it), 503 while the server closes, and
 * `Connection: close` on any answer given before the request's body arrived (a wrong key, an
 * unknown path, a rate limit...), so that a body nobody will use is never read.
 */
export function guardTransport(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (closing) {
      reply.code(503).header('connection', 'close').send({ error: OwnError.shuttingDown });
      return;
    }
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      reply.code(400).header('connection', 'close').send({ error: OwnError.hostRequired });
      return;
    }
    done();
  });
  app.addHook('onSend', (request, reply, _payload, done) => {
    if (!request.raw.complete) {
      reply.header('connection', 'close');
      closeWithoutReading(request.raw.socket);
    }
    done();
  });
  app.server.on('connect', refuseConnect);
  // A client may send its request and then its FIN (`nc`, HTTP/1.0-era clients). Node's default
  // ends the socket at that FIN, dropping any answer not yet written, such as a 429 given after
  // its pause; half-open, Node writes the answer and then closes.
  (app.server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
}

/** How long a client has to read an answer given before its body, before the socket goes. */
const LINGER_MS = 1000;

/**
 * After an answer with `Connection: close`, Node reads and discards what still arrives until the
 * socket is closed, and closing it with bytes unread makes the kernel reset the connection, which
 * can cost the client the answer it was just sent. For an answer given before the body arrived,
 * the socket instead stops reading at once (Node's `_paused` flag keeps the request from resuming
 * it), sends its FIN after the answer, and is destroyed a second later: the client gets the whole
 * answer and the body is never read.
 */
function closeWithoutReading(socket: Socket): void {
  const closing = socket as Socket & { destroySoon?: () => void; _paused?: boolean };
  if (typeof closing.destroySoon !== 'function') return;
  closing.destroySoon = () => {
    closing._paused = true;
    closing.pause();
    closing.end();
    setTimeout(() => closing.destroy(), LINGER_MS).unref();
  };
}

/**
 * CONNECT (a proxy tunnel) is not something this server does. Nothing after its head is read: a
 * client still sending (a body, a tunnel's bytes) would keep the socket open for ever, so it goes
 * a linger after the answer, as every early answer's does.
 */
function refuseConnect(_request: unknown, socket: Socket): void {
  const body = JSON.stringify({ error: OwnError.methodNotAllowed });
  socket.on('error', () => socket.destroy());
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.end(
    `HTTP/1.1 405 ${STATUS_CODES[405]}\r\nAllow: ${SERVER_METHODS}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}
