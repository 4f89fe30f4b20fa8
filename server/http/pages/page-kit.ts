import { DEFAULT_THEME, THEMES, type Theme } from '../../domain/themes.js';
import { AssetRegistry } from './assets.js';
import { FAVICON_SVG } from './favicon.js';
import { renderDocument } from './html-document.js';
import { StatusPageView } from './status-page-view.js';
import { publicPageCss } from './styles/public-page-css.js';

/** What every page needs from the others: assets by name, and the pages that never change. */
export interface PageKit {
  assets: AssetRegistry;
  favicon: string;
  /** The stylesheet of a theme of the public page. */
  stylesheetOf(theme: Theme): string;
  /** The one 404 page: the same body for a hidden page, an unknown name and an unknown path. */
  notFoundHtml: string;
  /** An error page (400 or 500). */
  errorHtml(status: number, requestId: string): string;
}

export function createPageKit(): PageKit {
  const assets = new AssetRegistry();
  const favicon = assets.addFixed('/favicon.svg', 'image/svg+xml', FAVICON_SVG);
  const stylesheets = new Map(
    THEMES.map((theme) => [
      theme.id,
      assets.add(`page-${theme.id}`, 'css', 'text/css; charset=utf-8', publicPageCss(theme)),
    ]),
  );
  const stylesheetOf = (theme: Theme) => stylesheets.get(theme.id) as string;
  const statusPage = (title: string, message: string, requestId?: string) =>
    renderDocument(
      StatusPageView({
        title,
        message,
        requestId,
        stylesheet: stylesheetOf(DEFAULT_THEME),
        favicon,
      }),
    );
  const notFoundHtml = statusPage('Page not found', 'There is no page at this address.');

  return {
    assets,
    favicon,
    stylesheetOf,
    notFoundHtml,
    errorHtml: (status, requestId) =>
      status < 500
        ? statusPage('Bad request', 'This request could not be understood.')
        : statusPage(
            'Something went wrong',
            'The server could not answer this request. Please try again.',
            requestId,
          ),
  };
}
