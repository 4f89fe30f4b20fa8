import type { PublicPage, ShownBlock } from '../../../services/public-page-service.js';
import { ArrowIcon, MailIcon, MoodIcon, PinIcon } from '../icons.js';

export interface PublicPageProps {
  page: PublicPage;
  /** Absolute URL of the page, under its stored name. */
  canonicalUrl: string;
  stylesheet: string;
  favicon: string;
}

const DESCRIPTION_LENGTH = 160;

/** The bio on one line, cut at a word near `max` characters, for search results and previews. */
function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const cut = line.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function Block({ block }: { block: ShownBlock }) {
  if (block.type === 'link') {
    return (
      <li class="block link">
        <a href={block.content} rel="noopener noreferrer nofollow ugc">
          {block.title === null ? (
            <span>{block.label}</span>
          ) : (
            <span class="link-text">
              <span class="link-title">{block.title}</span>
              <span class="link-host">{block.label}</span>
            </span>
          )}
          <ArrowIcon />
        </a>
      </li>
    );
  }
  // Paragraphs at blank lines; single line breaks are kept by the stylesheet (pre-line).
  return (
    <li class="block text">
      {block.content
        .split(/\n\s*\n/)
        .filter((paragraph) => paragraph.trim() !== '')
        .map((paragraph) => (
          <p>{paragraph}</p>
        ))}
    </li>
  );
}

/** An account's public personal page. Ships no JavaScript. */
export function PublicPageView({ page, canonicalUrl, stylesheet, favicon }: PublicPageProps) {
  const name = page.displayName;
  const description = shorten(page.bio?.trim() || `${name}'s page`, DESCRIPTION_LENGTH);
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{name}</title>
        <meta name="description" content={description} />
        <link rel="canonical" href={canonicalUrl} />
        <meta property="og:type" content="profile" />
        <meta property="og:title" content={name} />
        <meta property="og:description" content={description} />
        <meta property="og:url" content={canonicalUrl} />
        {page.avatarUrl && <meta property="og:image" content={page.avatarUrl} />}
        <meta property="profile:username" content={name} />
        <meta name="twitter:card" content="summary" />
        <meta name="color-scheme" content={page.theme.scheme} />
        <link rel="icon" href={favicon} type="image/svg+xml" />
        <link rel="stylesheet" href={stylesheet} />
      </head>
      <body>
        <main class="page">
          <header class="profile">
            {page.avatarUrl && (
              <img
                class="avatar"
                src={page.avatarUrl}
                alt={`${name}'s avatar`}
                width={96}
                height={96}
                referrerpolicy="no-referrer"
              />
            )}
            <h1>{name}</h1>
            {(page.location || page.mood) && (
              <ul class="meta">
                {page.location && (
                  <li>
                    <PinIcon />
                    <span class="sr-label">Location: </span>
                    {page.location}
                  </li>
                )}
                {page.mood && (
                  <li>
                    <MoodIcon />
                    <span class="sr-label">Mood: </span>
                    {page.mood}
                  </li>
                )}
              </ul>
            )}
            {page.bio && <p class="bio">{page.bio}</p>}
            {page.contact && (
              <a class="contact" href={`mailto:${page.contact}`}>
                <MailIcon />
                {page.contact}
              </a>
            )}
          </header>
          {page.blocks.length > 0 && (
            <ul class="blocks">
              {page.blocks.map((block) => (
                <Block block={block} />
              ))}
            </ul>
          )}
        </main>
        <footer class="footer">
          Made with <a href="/">ci-stats</a>
        </footer>
      </body>
    </html>
  );
}
