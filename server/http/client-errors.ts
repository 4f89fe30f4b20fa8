import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { OwnError, SpecError } from '../../contract/error-texts.js';

/** Node's per-socket pointer to the response it is writing (or waiting to write) first. */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

const answered = new WeakSet<Socket>();

/**
 * Requests Node cannot even parse (a bad request line, a Content-Length that does not match the
 * body, headers too large, a client too slow) never reach a route; they still get a JSON
 * `{ "error": ... }`, as every other error does.
 *
 * The bytes Node could not parse may follow requests it did parse and that are being executed
 * (stray bytes after a Content-Length, pipelined garbage): those requests get their own answers
 * first, and the error is answered after them, as the answer to the bad bytes, before the
 * connection closes. A request still being received (its body cut by a timeout or malformed) will
 * never run, so its error is answered at once.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection is gone: there is no one to answer. Node reports every later chunk of a
  // broken stream again: the first report is answered.
  if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
  answered.add(socket);
  // Nothing after the bad bytes can be parsed: stop reading them.
  socket.pause();
  const [status, text] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, OwnError.requestTimeout]
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, OwnError.headersTooLarge]
        : [400, SpecError.invalidBody];
  afterExecutedRequests(socket as HttpSocket, () => answerAndClose(socket, status, text, error));
}

/** Runs `then` once every fully received request of the socket has been answered. */
function afterExecutedRequests(socket: HttpSocket, then: () => void): void {
  const pending = socket._httpMessage;
  if (!pending || pending.writableFinished || !pending.req?.complete) {
    then();
    return;
  }
  let done = false;
  const next = () => {
    if (done) return;
    done = true;
    // Node hands the socket to the next pipelined response in its own 'finish' listener, which
    // ran before this one.
    if (socket.destroyed) return;
    afterExecutedRequests(socket, then);
  };
  pending.once('finish', next);
  pending.once('close', next);
}

function answerAndClose(socket: HttpSocket, status: number, text: string, error: Error): void {
  if (socket.destroyed) return;
  // A response already under way cannot be interrupted by another one without corrupting it
  // (one that has finished has handed all its bytes to the socket, ahead of ours).
  const current = socket._httpMessage;
  const started = current?.headersSent === true && !current.writableFinished;
  if (socket.writable && !started) {
    const body = JSON.stringify({ error: text });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    socket.end();
    // A client that does not close its side is not waited for.
    setTimeout(() => socket.destroy(), 1000).unref();
    return;
  }
  socket.destroy(error);
}
