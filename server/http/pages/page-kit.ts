import { DEFAULT_THEME, THEMES, type Theme } from '../../domain/themes.js';
import { AssetRegistry } from './assets.js';
import type { PageAssets } from './dashboard/views/dashboard-layout.js';
import { FAVICON_SVG } from './favicon.js';
import { renderDocument } from './html-document.js';
import { chartAssets } from './project-stats/chart-assets.js';
import { StatusPageView } from './status-page-view.js';
import { dashboardCss } from './styles/dashboard-css.js';
import { DOCS_CSS } from './styles/docs-css.js';
import { publicPageCss } from './styles/public-page-css.js';

/** What every page needs from the others: assets by name, and the pages that never change. */
export interface PageKit {
  /** BASE_PATH ('' at the root): every page rendered with the kit puts it before its addresses. */
  basePath: string;
  assets: AssetRegistry;
  favicon: string;
  /** The stylesheet of a theme of the public page. */
  stylesheetOf(theme: Theme): string;
  /** The dashboard's and the landing page's stylesheet. */
  dashboardStylesheet: string;
  /** The manual's (/docs) stylesheet. */
  docsStylesheet: string;
  /** What the statistics page adds: its stylesheets (its own, uPlot's) and scripts. */
  statsAssets: PageAssets;
  /** The one 404 page: the same body for a hidden page, an unknown name and an unknown path. */
  notFoundHtml: string;
  /** The page of an error status (4xx, 500, or 503 while the database is away). */
  errorHtml(status: number, requestId: string): string;
  /** The 400 page of an address or form whose `field` holds a NUL (contract/text-rule.ts). */
  refusedTextHtml(field: string): string;
  /** The 403 page of a dashboard form posted from a page of another origin. */
  crossSiteFormHtml: string;
  /** The 503 page while the database's disk is full. */
  storageFullHtml: string;
  /** The 429 page of a share page or badge asked for too often (a rate limit, a full queue). */
  busyHtml: string;
  /** The 503 page of a statistics read cut short by its time limit. */
  slowReadHtml: string;
}

/** What a client error says, by status; others read as 400. */
const ERROR_PAGES: Record<number, [string, string]> = {
  400: ['Bad request', 'This request could not be understood.'],
  403: [
    'This form has expired',
    'For your safety the form could not be accepted. Go back, reload the page and try again.',
  ],
  413: ['Too large', 'What was sent is larger than this server accepts.'],
  405: ['Not allowed here', 'This address does not take this kind of request.'],
  415: ['Not a form', 'This page accepts forms only.'],
  429: ['Too many attempts', 'Wait a few minutes before trying again.'],
};

export function createPageKit(basePath: string): PageKit {
  const assets = new AssetRegistry();
  const favicon = assets.addFixed('/favicon.svg', 'image/svg+xml', FAVICON_SVG);
  const stylesheets = new Map(
    THEMES.map((theme) => [
      theme.id,
      assets.add(`page-${theme.id}`, 'css', 'text/css; charset=utf-8', publicPageCss(theme)),
    ]),
  );
  const stylesheetOf = (theme: Theme) => stylesheets.get(theme.id) as string;
  const dashboardStylesheet = assets.add(
    'dashboard',
    'css',
    'text/css; charset=utf-8',
    dashboardCss(THEMES),
  );
  const docsStylesheet = assets.add('docs', 'css', 'text/css; charset=utf-8', DOCS_CSS);
  const statsAssets = chartAssets(assets);
  const statusPage = (title: string, message: string, requestId?: string) =>
    renderDocument(
      StatusPageView({
        title,
        message,
        requestId,
        stylesheet: stylesheetOf(DEFAULT_THEME),
        favicon,
      }),
      basePath,
    );
  const notFoundHtml = statusPage('Page not found', 'There is no page at this address.');

  return {
    basePath,
    assets,
    favicon,
    stylesheetOf,
    dashboardStylesheet,
    docsStylesheet,
    statsAssets,
    notFoundHtml,
    storageFullHtml: statusPage(
      'Temporarily unavailable',
      "The server's storage is full, so nothing could be saved. Please try again later.",
    ),
    busyHtml: statusPage(
      'Too many requests',
      'These statistics are being asked for more often than the server answers at once. Please try again in a few seconds.',
    ),
    slowReadHtml: statusPage(
      'Taking too long',
      'Reading these statistics took longer than the server allows. Try a shorter time range, or try again later.',
    ),
    crossSiteFormHtml: statusPage(
      'Sent from another site',
      'This form was sent from a page of another site, so it was not accepted and nothing was changed. Open the dashboard at its own address and try again.',
    ),
    refusedTextHtml: (field) =>
      statusPage(
        'Bad request',
        `“${field}” holds a NUL character (U+0000), which this server does not accept. Nothing was changed.`,
      ),
    errorHtml: (status, requestId) => {
      if (status === 404) return notFoundHtml;
      if (status === 503) {
        return statusPage(
          'Temporarily unavailable',
          'The server cannot reach its database right now. Please try again in a moment.',
          requestId,
        );
      }
      if (status >= 500) {
        return statusPage(
          'Something went wrong',
          'The server could not answer this request. Please try again.',
          requestId,
        );
      }
      const [title, message] = ERROR_PAGES[status] ?? (ERROR_PAGES[400] as [string, string]);
      return statusPage(title, message);
    },
  };
}
