import { extname } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { addressOf } from '../../base-path.js';
import { renderDocument } from '../html-document.js';
import type { PageKit } from '../page-kit.js';
import type { OpenApiDocument } from './api-reference-view.js';
import { DocsPageView } from './docs-page-view.js';
import { API_REFERENCE_URL, type DocsSet, IMAGE_TYPES, loadDocsSet } from './docs-set.js';

/** The OpenAPI document, as the API serves it. */
const OPENAPI_PATH = '/openapi.json';

/** Pages may change with a new release only: a browser may keep one a few minutes. */
const PAGE_CACHE = 'public, max-age=300';

/**
 * The manual the server carries, at /docs: the repository's Markdown rendered (docs/README.md is
 * /docs, docs/<page>.md is /docs/<page>, the top-level README.md, CHANGELOG.md and BENCHMARKS.md
 * keep their names), the images its pages show, and the API reference rendered from the API's
 * own OpenAPI document. Registered in the public pages' context: their security headers, no
 * script, nothing from another host. Each page is rendered once, on its first request.
 */
export function docsRoutes(kit: PageKit, docs: DocsSet = loadDocsSet()) {
  return async (app: FastifyInstance) => {
    const chrome = { stylesheet: kit.docsStylesheet, favicon: kit.favicon };
    const html = (reply: FastifyReply, body: string) =>
      reply.type('text/html; charset=utf-8').header('cache-control', PAGE_CACHE).send(body);

    const routes = new Set<string>();
    for (const [path, url] of docs.pages) {
      let page: string | undefined;
      const rendered = async () => {
        if (page === undefined) {
          const source = docs.read(path).toString('utf8');
          // markdown-it is loaded on the first page asked for, not at every start.
          const { renderMarkdown } = await import('./markdown.js');
          const { title, html: body } = renderMarkdown(path, source, docs);
          page = renderDocument(DocsPageView({ title, html: body, chrome }), kit.basePath);
        }
        return page;
      };
      const urls = url === '/docs' ? [url, '/docs/'] : [url];
      for (const each of urls) {
        routes.add(each);
        app.get(each, async (_request, reply) => html(reply, await rendered()));
      }
      // The file's own name, as a link copied from the repository has it.
      const named = `/${path}`.replace(/^\/(?!docs\/)/, '/docs/');
      if (!routes.has(named)) {
        routes.add(named);
        app.get(named, async (_request, reply) => reply.redirect(addressOf(app, url), 301));
      }
    }

    for (const [path, url] of docs.images) {
      const type = IMAGE_TYPES[extname(path)] as string;
      app.get(url, async (_request, reply) =>
        reply.type(type).header('cache-control', 'public, max-age=86400').send(docs.read(path)),
      );
    }

    let reference: string | undefined;
    app.get(API_REFERENCE_URL, async (_request, reply) => {
      if (reference === undefined) {
        const document = (
          await app.inject({ url: addressOf(app, OPENAPI_PATH) })
        ).json() as OpenApiDocument;
        // Like the pages' Markdown, loaded on the first request for it.
        const { ApiReferenceView } = await import('./api-reference-view.js');
        reference = renderDocument(ApiReferenceView({ document, chrome }), kit.basePath);
      }
      return html(reply, reference);
    });
  };
}
