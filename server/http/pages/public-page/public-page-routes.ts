import { createHash } from 'node:crypto';
import accepts from 'accepts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fresh from 'fresh';
import { OwnError } from '../../../../contract/error-texts.js';
import { publicPagePath } from '../../../../contract/paths.js';
import type { PublicPageJson } from '../../../../contract/public-page.js';
import { type PublicPage, publicPageJson } from '../../../services/public-page-service.js';
import { publicBaseOf } from '../../base-path.js';
import { renderDocument } from '../html-document.js';
import type { PageKit } from '../page-kit.js';
import { PublicPageView } from './public-page-view.js';

const HTML = 'text/html; charset=utf-8';
/** Origins a page is rendered for when PUBLIC_URL is unset (Host headers are the client's). */
const MAX_ORIGINS_PER_PAGE = 8;

/**
 * Whether the client asked for JSON rather than HTML: q-values honoured, HTML by default. Most
 * requests name no JSON at all, and skip the negotiation.
 */
function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  if (accept === undefined || !accept.includes('json')) return false;
  return accepts(request.raw).type(['html', 'json']) === 'json';
}

/** A page's two answers at one origin, each with its ETag. The HTML is rendered when first asked. */
interface Representations {
  canonicalUrl: string;
  htmlEtag: string;
  jsonEtag: string;
  html?: string;
  json?: PublicPageJson;
}

/**
 * GET /@<display_name>: the public page as HTML, or as JSON with `Accept: application/json`.
 *
 * A hidden site, an unknown name and an account without a name all get the same 404 (and
 * `no-store`), so nobody learns that a hidden page exists. A shown page has an ETag computed from
 * what it shows and `Cache-Control: no-cache`, so a page made hidden disappears for every client
 * at its next request. The service hands back the same page object while the page is unchanged;
 * its answers (ETags, HTML, JSON) are kept with it, so an unchanged page costs no database read,
 * no hashing and no rendering, and a 304 only a comparison.
 */
export function publicPageRoutes(kit: PageKit) {
  return async (app: FastifyInstance) => {
    const { publicPage } = app.services;
    const answers = new WeakMap<PublicPage, Map<string, Representations>>();

    const render = (page: PublicPage, canonicalUrl: string) =>
      renderDocument(
        PublicPageView({
          page,
          canonicalUrl,
          stylesheet: kit.stylesheetOf(page.theme),
          favicon: kit.favicon,
        }),
        kit.basePath,
      );

    // The markup itself is part of every ETag: a new template (a deploy) is a new version.
    const templateVersion = createHash('sha256')
      .update(kit.notFoundHtml)
      .update(render(SAMPLE_PAGE, 'https://example.com/@sample'))
      .digest('base64url');

    function representationsOf(page: PublicPage, origin: string): Representations {
      let byOrigin = answers.get(page);
      if (!byOrigin) {
        byOrigin = new Map();
        answers.set(page, byOrigin);
      }
      let found = byOrigin.get(origin);
      if (!found) {
        const canonicalUrl = `${origin}${publicPagePath(page.displayName)}`;
        const digest = createHash('sha256')
          .update(
            JSON.stringify([templateVersion, kit.stylesheetOf(page.theme), canonicalUrl, page]),
          )
          .digest('base64url')
          .slice(0, 27);
        found = { canonicalUrl, htmlEtag: `"h${digest}"`, jsonEtag: `"j${digest}"` };
        if (byOrigin.size >= MAX_ORIGINS_PER_PAGE) byOrigin.clear();
        byOrigin.set(origin, found);
      }
      return found;
    }

    app.get<{ Params: { name: string } }>('/@:name', async (request, reply) => {
      const json = wantsJson(request);
      reply.header('vary', 'Accept');
      const page = await publicPage.find(request.params.name);
      if (!page) {
        reply.code(404).header('cache-control', 'no-store');
        return json ? { error: OwnError.notFound } : reply.type(HTML).send(kit.notFoundHtml);
      }
      const found = representationsOf(page, publicBaseOf(request));
      const etag = json ? found.jsonEtag : found.htmlEtag;
      reply.header('etag', etag).header('cache-control', 'no-cache');
      if (fresh(request.headers, { etag })) return reply.code(304).send();
      if (json) {
        found.json ??= publicPageJson(page);
        return found.json;
      }
      found.html ??= render(page, found.canonicalUrl);
      return reply.type(HTML).send(found.html);
    });
  };
}

/** A page using every part of the template, whose rendering fingerprints the template. */
const SAMPLE_PAGE: PublicPage = {
  displayName: 'sample',
  bio: 'bio',
  avatarUrl: 'https://example.com/a.png',
  location: 'here',
  mood: 'fine',
  theme: {
    id: 'sample',
    name: 'Sample',
    scheme: 'light',
    font: 'sans',
    radius: 0,
    palette: {
      background: '#ffffff',
      surface: '#ffffff',
      border: '#000000',
      text: '#000000',
      muted: '#000000',
      link: '#000000',
      accent: '#000000',
      accentText: '#ffffff',
    },
  },
  blocks: [
    { type: 'text', content: 'text' },
    { type: 'link', content: 'https://example.com/', label: 'example.com', title: 'Example' },
  ],
  contact: 'sample@example.com',
};
