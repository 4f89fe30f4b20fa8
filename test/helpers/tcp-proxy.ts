import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay in front of PostgreSQL, which a test can take away and bring back: while it is
 * down its port refuses connections and the connections it carried are gone, as the server's
 * clients see a PostgreSQL restart, without restarting the cluster other tests are using.
 */
export class TcpProxy {
  #server: Server | undefined;
  #port = 0;
  readonly #sockets = new Set<Socket>();

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
  ) {}

  /** Listens (again, on the same port once it has one). */
  async start(): Promise<number> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    server.listen(this.#port, '127.0.0.1');
    await once(server, 'listening');
    this.#server = server;
    this.#port = (server.address() as AddressInfo).port;
    return this.#port;
  }

  get port(): number {
    return this.#port;
  }

  /** New connections are refused from now on; those open stay until `dropConnections`. */
  async stopAccepting(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    const closed = once(server, 'close');
    server.close();
    // close() waits for the open connections: not those, only the listening socket matters here.
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 50))]);
  }

  /** Cuts every connection it carries. */
  dropConnections(): void {
    for (const socket of this.#sockets) socket.destroy();
  }

  async stop(): Promise<void> {
    await this.stopAccepting();
    this.dropConnections();
  }
}
