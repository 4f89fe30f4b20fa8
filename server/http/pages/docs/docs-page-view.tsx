import { API_REFERENCE_URL } from './docs-set.js';

/** What every page of the manual links to. */
export interface DocsChrome {
  stylesheet: string;
  favicon: string;
}

export function DocsHeader() {
  return (
    <header class="docs">
      <a href="/docs">ci-stats manual</a>
      <a href="/docs/api">HTTP API</a>
      <a href={API_REFERENCE_URL}>API reference</a>
      <a href="/dashboard">Dashboard</a>
    </header>
  );
}

/**
 * A page of the manual. Its HTML comes from markdown-it with `html: false` (markdown.ts): every
 * character of the source that could be markup is escaped there, which is why this is the one
 * view that inserts HTML as it is.
 */
export function DocsPageView({
  title,
  html,
  chrome,
}: {
  title: string;
  html: string;
  chrome: DocsChrome;
}) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · ci-stats`}</title>
        <link rel="stylesheet" href={chrome.stylesheet} />
        <link rel="icon" href={chrome.favicon} type="image/svg+xml" />
      </head>
      <body>
        <DocsHeader />
        <main dangerouslySetInnerHTML={{ __html: html }} />
      </body>
    </html>
  );
}
