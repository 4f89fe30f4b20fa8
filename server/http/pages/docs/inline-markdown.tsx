import MarkdownIt from 'markdown-it';

/**
 * The API reference's texts (the document's description, each operation's summary and answers)
 * are Markdown, as OpenAPI says: rendered inline (code, emphasis, links), with no HTML of the
 * source let through (`html: false` escapes it), so the result is safe to insert as it is.
 */
const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** A span of `text` rendered as inline Markdown. */
export function InlineMarkdown({ text }: { text: string | undefined }) {
  if (text === undefined || text === '') return null;
  return <span dangerouslySetInnerHTML={{ __html: md.renderInline(text) }} />;
}
