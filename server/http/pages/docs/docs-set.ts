import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The manual the server carries: the repository's Markdown (README.md, CHANGELOG.md,
 * BENCHMARKS.md and docs/**.md) and the images docs/ holds, each with the URL it is served at.
 * Repository paths are POSIX, relative to the repository's root, as the pages link to each other.
 */

/** The top-level Markdown files served beside docs/ (the pages link to them). */
const TOP_LEVEL = ['README.md', 'CHANGELOG.md', 'BENCHMARKS.md'];

/** Images under docs/ that pages show, by extension. */
export const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
};

/** The OpenAPI document, committed in docs/ and shown rendered on a server. */
export const OPENAPI_FILE = 'docs/openapi.json';
export const API_REFERENCE_URL = '/docs/api/reference';

export interface DocsSet {
  /** Where the repository's files are, on this machine. */
  root: string;
  /** Markdown: repository path -> URL (`docs/README.md` -> `/docs`, `docs/api.md` -> `/docs/api`). */
  pages: Map<string, string>;
  /** Images: repository path -> URL (`docs/screenshots/a.png` -> `/docs/screenshots/a.png`). */
  images: Map<string, string>;
  /** Where a link to this repository path goes on the server, if it is served. */
  urlOf(path: string): string | undefined;
  read(path: string): Buffer;
}

/** The repository (or the release) this server runs from: the nearest folder with package.json. */
export function serverRoot(from = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}`);
    dir = up;
  }
  return dir;
}

function filesUnder(root: string, dir: string): string[] {
  const path = join(root, dir);
  if (!existsSync(path)) return [];
  return readdirSync(path, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/** The URL of a Markdown file: docs/ pages by their name, top-level files by theirs. */
export function pageUrl(path: string): string {
  const name = path.replace(/\.md$/, '');
  if (name === 'docs/README') return '/docs';
  if (name.startsWith('docs/')) return `/${name}`;
  return `/docs/${name}`;
}

export function loadDocsSet(root = serverRoot()): DocsSet {
  const docs = filesUnder(root, 'docs');
  const markdown = [...TOP_LEVEL.filter((file) => existsSync(join(root, file))), ...docs].filter(
    (path) => path.endsWith('.md'),
  );
  const pages = new Map(markdown.map((path) => [path, pageUrl(path)]));
  const images = new Map(
    docs.filter((path) => IMAGE_TYPES[extname(path)]).map((path) => [path, `/${path}`]),
  );
  return {
    root,
    pages,
    images,
    urlOf: (path) =>
      pages.get(path) ??
      images.get(path) ??
      (path === OPENAPI_FILE && existsSync(join(root, OPENAPI_FILE))
        ? API_REFERENCE_URL
        : undefined),
    read: (path) => readFileSync(join(root, ...path.split('/'))),
  };
}

/** A relative link's target as a repository path, from the page that holds it. */
export function resolveLink(from: string, href: string): string {
  return posix.normalize(posix.join(posix.dirname(from), decodeURIComponent(href)));
}
