import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { rebaseDocument } from '../base-path.js';

/**
 * A whole HTML document from a view. Preact escapes every string it renders, in text and in
 * attributes, so views never escape by hand (and never use dangerouslySetInnerHTML). Views write
 * the app's addresses (`/dashboard`); `basePath` (BASE_PATH, '' at the root) is put before them
 * here, for every page at once (base-path.ts).
 */
export function renderDocument(view: VNode, basePath: string): string {
  return rebaseDocument(`<!doctype html>${renderToString(view)}`, basePath);
}
