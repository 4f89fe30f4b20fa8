import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect } from 'node:net';
import { join } from 'node:path';

/** A self-signed certificate for the name `stats.test` (children trust it: NODE_EXTRA_CA_CERTS). */
export const TEST_CA = join(import.meta.dirname, '..', 'fixtures', 'tls', 'stats.test.crt');
const TEST_KEY = join(import.meta.dirname, '..', 'fixtures', 'tls', 'stats.test.key');

/** The name the reporters are pointed at: it resolves nowhere, only the proxy knows it. */
export const PROXIED_HOST = 'stats.test';

const portOf = (server: Server) => (server.address() as AddressInfo).port;

async function listening<T extends Server>(server: T): Promise<T> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** Forwards an HTTP request to 127.0.0.1:port, answer and all. */
function forwarder(port: number) {
  return (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    const upstream = request(
      {
        host: '127.0.0.1',
        port,
        method: req.method,
        path: url.pathname + url.search,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.once('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  };
}

export interface TestProxy {
  url: string;
  /** What the proxy was asked: `GET http://…` lines, or `CONNECT host:port`. */
  seen: string[];
  close(): Promise<void>;
}

/**
 * A forward proxy on 127.0.0.1, like a corporate one: absolute-form HTTP requests to `stats.test`
 * go to the HTTP port, CONNECT tunnels to `stats.test` to the HTTPS port.
 */
export async function startProxy(httpPort: number, httpsPort: number): Promise<TestProxy> {
  const seen: string[] = [];
  const forward = forwarder(httpPort);
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    forward(req, res);
  });
  const tunnels = new Set<import('node:stream').Duplex>();
  server.on('connect', (req, client, head) => {
    tunnels.add(client);
    client.once('close', () => tunnels.delete(client));
    seen.push(`CONNECT ${req.url}`);
    const [host] = (req.url ?? '').split(':');
    if (host !== PROXIED_HOST) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const socket = connect(httpsPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      socket.write(head);
      socket.pipe(client).pipe(socket);
    });
    socket.once('error', () => client.destroy());
    client.once('error', () => socket.destroy());
  });
  await listening(server);
  return {
    url: `http://127.0.0.1:${portOf(server)}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const tunnel of tunnels) tunnel.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An HTTPS front for stats.test, with the test certificate, forwarding to 127.0.0.1:port. */
export async function startTlsFront(port: number): Promise<{ port: number; close(): void }> {
  const server = createHttpsServer(
    { cert: readFileSync(TEST_CA), key: readFileSync(TEST_KEY) },
    forwarder(port),
  );
  await listening(server as unknown as Server);
  return {
    port: portOf(server as unknown as Server),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
