import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { SpecError } from '../../contract/error-texts.js';

/**
 * Requests Node cannot even parse (a bad request line, a Content-Length that does not match the
 * body, headers too large, a client too slow) never reach a route; they still get a JSON
 * `{ "error": ... }`, as every other error does.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection is gone: there is no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request timeout.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request headers are too large.']
        : [400, SpecError.invalidBody];
  const body = JSON.stringify({ error: text });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
