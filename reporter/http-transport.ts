import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { getProxyForUrl } from 'proxy-from-env';
import type { Exchange, Transport, TransportResponse } from './client.js';

/** Loopback hosts are never sent through a proxy (as @actions/http-client does). */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1)$/i;

/**
 * The proxy for a URL from HTTPS_PROXY / HTTP_PROXY / ALL_PROXY and NO_PROXY (upper or lower
 * case, read by proxy-from-env the way curl reads them), or undefined for a direct connection.
 */
export function proxyFor(target: URL): URL | undefined {
  if (LOOPBACK.test(target.hostname)) return undefined;
  const proxy = getProxyForUrl(target.href);
  if (!proxy) return undefined;
  try {
    return new URL(proxy.includes('://') ? proxy : `http://${proxy}`);
  } catch {
    return undefined;
  }
}

function proxyAuthorization(proxy: URL): Record<string, string> {
  if (!proxy.username) return {};
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}

const portOf = (url: URL) => Number(url.port) || (url.protocol === 'https:' ? 443 : 80);

/**
 * node:https and node:tls, loaded only for an https target: they cost a step to plain http (the
 * usual self-hosted loopback or in-cluster server) about a fifth of its start-up time.
 */
const tls = () => Promise.all([import('node:https'), import('node:tls')]);

interface PostOptions {
  method: string;
  headers: Record<string, string>;
  /** Undefined for a request without a body (GET). */
  body: string | Uint8Array | undefined;
}

/**
 * A request to an https target through an http proxy: CONNECT host:port, then TLS over the tunnel
 * (certificate checked against the target's name).
 */
async function tunnelled(
  target: URL,
  proxy: URL,
  options: PostOptions,
  onRequest: (r: ClientRequest) => void,
): Promise<IncomingMessage> {
  const [https, { connect: tlsConnect }] = await tls();
  const connect = httpRequest({
    host: proxy.hostname,
    port: portOf(proxy),
    method: 'CONNECT',
    path: `${target.hostname}:${portOf(target)}`,
    headers: { host: `${target.hostname}:${portOf(target)}`, ...proxyAuthorization(proxy) },
  });
  onRequest(connect);
  return new Promise<IncomingMessage>((resolve, reject) => {
    connect.once('error', reject);
    connect.once('connect', (answer, socket) => {
      if (answer.statusCode !== 200) {
        socket.destroy();
        reject(new Error(`the proxy refused the tunnel (HTTP ${answer.statusCode})`));
        return;
      }
      // No agent: Node then opens the request on this connection, the tunnel.
      const req = https.request({
        method: options.method,
        headers: options.headers,
        host: target.hostname,
        port: portOf(target),
        path: target.pathname + target.search,
        createConnection: () => tlsConnect({ socket, servername: target.hostname }),
      });
      onRequest(req);
      req.once('response', resolve).once('error', reject);
      req.end(options.body);
    });
    connect.end();
  });
}

/** A direct request (http or https), or an http one through a proxy in absolute form. */
async function direct(
  target: URL,
  proxy: URL | undefined,
  options: PostOptions,
  onRequest: (r: ClientRequest) => void,
): Promise<IncomingMessage> {
  const send = target.protocol === 'https:' ? (await tls())[0].request : httpRequest;
  const { method, headers } = options;
  const req = proxy
    ? send({
        method,
        host: proxy.hostname,
        port: portOf(proxy),
        path: target.href,
        headers: { ...headers, host: target.host, ...proxyAuthorization(proxy) },
        agent: false,
      })
    : send(target, { method, headers, agent: false });
  onRequest(req);
  return new Promise((resolve, reject) => {
    req.once('response', resolve).once('error', reject);
    req.end(options.body);
  });
}

function readAll(message: IncomingMessage): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.once('error', reject);
    message.once('end', () =>
      resolve({
        status: message.statusCode ?? 0,
        headers: message.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }),
    );
  });
}

/**
 * The reporters' way out, on node:http and node:https alone: one connection per exchange, no
 * redirects followed (a 3xx is an answer the client judges), the runner's proxy settings honoured.
 * @actions/http-client would do the same but loads undici (about 400 kB and 20 ms) at start.
 */
export const nodeHttpTransport: Transport = {
  post(url, body, headers, timeoutMs): Exchange {
    return nodeHttpTransport.request('POST', url, body, headers, timeoutMs);
  },
  request(method, url, body, headers): Exchange {
    const target = new URL(url);
    const proxy = proxyFor(target);
    const requests: ClientRequest[] = [];
    let abandoned = false;
    const track = (request: ClientRequest) => {
      requests.push(request);
      if (abandoned) request.destroy();
    };
    const options: PostOptions = {
      method,
      headers:
        body === undefined
          ? headers
          : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      body,
    };
    const answer =
      proxy && target.protocol === 'https:'
        ? tunnelled(target, proxy, options, track)
        : direct(target, proxy, options, track);
    return {
      response: answer.then(readAll),
      abandon: () => {
        abandoned = true;
        for (const req of requests) req.destroy();
      },
    };
  },
};
