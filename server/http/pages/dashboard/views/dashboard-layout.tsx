import type { ComponentChildren } from 'preact';
import { Csrf, Notice } from '../form-controls.js';

export interface Chrome {
  stylesheet: string;
  favicon: string;
}

/** What a page adds to the chrome: its own stylesheets, and scripts (run after parsing). */
export interface PageAssets {
  styles: string[];
  scripts: string[];
}

export type Section = 'overview' | 'site' | 'account' | 'keys' | 'projects';

const SECTIONS: [Section, string, string][] = [
  ['overview', 'Overview', '/dashboard'],
  ['site', 'Site', '/dashboard/site'],
  ['account', 'Account', '/dashboard/account'],
  ['keys', 'API keys', '/dashboard/keys'],
  ['projects', 'Projects', '/dashboard/projects'],
];

/** The <head> every dashboard page shares. */
export function DashboardHead({
  title,
  chrome,
  assets,
}: {
  title: string;
  chrome: Chrome;
  assets?: PageAssets | undefined;
}) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex" />
      <title>{`${title} · ci-stats`}</title>
      <link rel="icon" href={chrome.favicon} type="image/svg+xml" />
      <link rel="stylesheet" href={chrome.stylesheet} />
      {assets?.styles.map((href) => (
        <link rel="stylesheet" href={href} />
      ))}
      {assets?.scripts.map((src) => (
        <script src={src} defer />
      ))}
    </head>
  );
}

export interface LayoutProps {
  title: string;
  section: Section;
  chrome: Chrome;
  /** Who is signed in, as the header shows it: the alias, or a hint to set one. */
  who: string;
  csrf: string;
  notice?: { tone: 'ok' | 'bad' | 'warn'; text: string } | undefined;
  assets?: PageAssets | undefined;
  children: ComponentChildren;
}

/** The frame of every dashboard-styled page: head, skip link, top bar, main. */
export function PageFrame({
  title,
  chrome,
  assets,
  home,
  bar,
  children,
}: {
  title: string;
  chrome: Chrome;
  assets?: PageAssets | undefined;
  /** Where the brand links to. */
  home: string;
  /** What the top bar shows after the brand. */
  bar: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <html lang="en">
      <DashboardHead title={title} chrome={chrome} assets={assets} />
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="topbar">
          <div class="topbar-inner">
            <a class="brand" href={home}>
              <img src={chrome.favicon} alt="" width={24} height={24} />
              ci-stats
            </a>
            {bar}
          </div>
        </header>
        <main class="main" id="main">
          {children}
        </main>
      </body>
    </html>
  );
}

/** A share link's page (read-only, without sign-in): the frame with no navigation. */
export function SharedFrame({
  title,
  chrome,
  assets,
  children,
}: {
  title: string;
  chrome: Chrome;
  assets?: PageAssets | undefined;
  children: ComponentChildren;
}) {
  return (
    <PageFrame
      title={title}
      chrome={chrome}
      assets={assets}
      home="/"
      bar={<span class="muted">Shared statistics (read-only)</span>}
    >
      {children}
    </PageFrame>
  );
}

/** A signed-in page: the navigation, who is signed in, sign-out, and the page itself. */
export function DashboardLayout({
  title,
  section,
  chrome,
  who,
  csrf,
  notice,
  assets,
  children,
}: LayoutProps) {
  const bar = (
    <>
      <nav class="nav" aria-label="Dashboard">
        {SECTIONS.map(([id, label, href]) => (
          <a href={href} aria-current={id === section ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      <div class="who">
        <span>{who}</span>
        <form method="post" action="/dashboard/sign-out" class="inline-form">
          <Csrf token={csrf} />
          <button class="button secondary small" type="submit">
            Sign out
          </button>
        </form>
      </div>
    </>
  );
  return (
    <PageFrame title={title} chrome={chrome} assets={assets} home="/dashboard" bar={bar}>
      {notice && <Notice tone={notice.tone}>{notice.text}</Notice>}
      {children}
    </PageFrame>
  );
}
