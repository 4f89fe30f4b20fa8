import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

interface Asset {
  type: string;
  body: string;
  /** Content-hashed assets never change under their name: cached for a year. */
  immutable: boolean;
}

/**
 * The files the pages link to, served by us (no CDN). Each is registered once at start-up under a
 * name carrying a hash of its content, so it can be cached for good and a new version is a new
 * name.
 */
export class AssetRegistry {
  readonly #byPath = new Map<string, Asset>();

  /** Registers `body` as `/assets/<name>.<hash>.<extension>` and returns that path. */
  add(name: string, extension: string, type: string, body: string): string {
    const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12);
    const path = `/assets/${name}.${hash}.${extension}`;
    this.#byPath.set(path, { type, body, immutable: true });
    return path;
  }

  /** Registers a file under a fixed path (the favicon, which browsers ask for by name). */
  addFixed(path: string, type: string, body: string): string {
    this.#byPath.set(path, { type, body, immutable: false });
    return path;
  }

  /** Serves every registered asset; anything else under /assets is the caller's 404. */
  routes(app: FastifyInstance): void {
    for (const [path, asset] of this.#byPath) {
      app.get(path, async (_request, reply) =>
        reply
          .type(asset.type)
          .header(
            'cache-control',
            asset.immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=86400',
          )
          .send(asset.body),
      );
    }
  }
}
