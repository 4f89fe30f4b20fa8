import { createGunzip } from 'node:zlib';
import type { preParsingHookHandler } from 'fastify';
import { OwnError } from '../../../../contract/error-texts.js';

/** RFC 7694: a server names the request content codings it accepts in `Accept-Encoding`. */
export const ACCEPTED_ENCODINGS = 'gzip';

/**
 * A route's body may come compressed with gzip (`Content-Encoding: gzip`): it is decompressed as
 * it arrives, and the route's body limit applies to the decompressed bytes (Fastify counts what
 * this stream emits), so a small bomb is refused with 413 like a large body. Any other coding is
 * 415 with `Accept-Encoding: gzip` (RFC 7694); a body that is not valid gzip is 400.
 */
export const gunzipBody: preParsingHookHandler = (request, reply, payload, done) => {
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (encoding === undefined || encoding === '' || encoding === 'identity') {
    done(null, payload);
    return;
  }
  if (encoding !== 'gzip' && encoding !== 'x-gzip') {
    reply.header('accept-encoding', ACCEPTED_ENCODINGS);
    done(Object.assign(new Error(OwnError.unsupportedEncoding), { statusCode: 415 }));
    return;
  }
  const gunzip = createGunzip() as ReturnType<typeof createGunzip> & {
    receivedEncodedLength: number;
  };
  // Fastify compares Content-Length with the bytes received, not those decompressed.
  gunzip.receivedEncodedLength = 0;
  payload.on('data', (chunk: Buffer) => {
    gunzip.receivedEncodedLength += chunk.length;
  });
  payload.on('error', (error) => gunzip.destroy(error));
  payload.pipe(gunzip);
  done(null, gunzip);
};
