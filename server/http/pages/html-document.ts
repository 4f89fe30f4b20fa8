import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/**
 * A whole HTML document from a view. Preact escapes every string it renders, in text and in
 * attributes, so views never escape by hand (and never use dangerouslySetInnerHTML).
 */
export function renderDocument(view: VNode): string {
  return `<!doctype html>${renderToString(view)}`;
}
