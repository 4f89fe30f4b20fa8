import type {
  SiteBlockInput,
  SiteConfiguration,
  UpdateSiteConfigurationRequest,
} from '../../../../contract/site.js';
import { UpdateSiteConfigurationRequest as Schema } from '../../../../contract/site.js';
import { textOf } from './dashboard-pages.js';
import { type FieldErrors, fieldErrors } from './form-errors.js';

/** A block row of the editor, as the form carries it. */
export interface BlockRow {
  id: string;
  type: 'text' | 'link';
  content: string;
  enabled: boolean;
  /** A link's title ('' for none). */
  title: string;
}

/** What the site editor shows: the stored site, or what was just submitted. */
export interface SiteFormValues {
  bio: string;
  avatar_url: string;
  location: string;
  mood: string;
  theme_id: string;
  blocks: BlockRow[];
  newBlock: { type: 'text' | 'link'; content: string };
}

export const valuesOfSite = (site: SiteConfiguration): SiteFormValues => ({
  bio: site.bio ?? '',
  avatar_url: site.avatar_url ?? '',
  location: site.location ?? '',
  mood: site.mood ?? '',
  theme_id: site.theme_id ?? '',
  blocks: site.blocks.map(({ id, type, content, enabled, title }) => ({
    id,
    type,
    content,
    enabled,
    title: title ?? '',
  })),
  newBlock: { type: 'text', content: '' },
});

const typeOf = (value: unknown): 'text' | 'link' => (value === 'link' ? 'link' : 'text');
const rowsOf = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : value && typeof value === 'object' ? Object.values(value) : [];

/** The submitted form (qs-parsed) as editor values. */
export function valuesOfForm(form: Record<string, unknown>): SiteFormValues {
  const row = (value: unknown) =>
    value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const newBlock = row(form.newBlock);
  return {
    bio: textOf(form.bio),
    avatar_url: textOf(form.avatar_url).trim(),
    location: textOf(form.location),
    mood: textOf(form.mood),
    theme_id: textOf(form.theme_id),
    blocks: rowsOf(form.blocks).map((value) => {
      const block = row(value);
      return {
        id: textOf(block.id),
        type: typeOf(block.type),
        content: textOf(block.content),
        enabled: block.enabled === 'on',
        title: textOf(block.title),
      };
    }),
    newBlock: { type: typeOf(newBlock.type), content: textOf(newBlock.content) },
  };
}

/** A row's move or removal, from the button that submitted the form. */
export function applyAction(blocks: BlockRow[], action: string): BlockRow[] {
  const match = /^(up|down|remove)-(\d{1,3})$/.exec(action);
  if (!match) return blocks;
  const index = Number(match[2]);
  const rows = [...blocks];
  if (index >= rows.length) return rows;
  if (match[1] === 'remove') rows.splice(index, 1);
  else {
    const to = match[1] === 'up' ? index - 1 : index + 1;
    if (to < 0 || to >= rows.length) return rows;
    [rows[index], rows[to]] = [rows[to] as BlockRow, rows[index] as BlockRow];
  }
  return rows;
}

const URL_MESSAGE = 'Use an absolute http(s) URL, like https://example.com/me.png.';
const LINK_MESSAGE = 'A link must be an absolute http(s) URL (at most 2000 characters).';

/**
 * The editor's values as E4's request (the same schema and service as the API): empty fields
 * clear, the new block joins the list when it has content. Errors are keyed by field (`bio`,
 * `blocks.2.content`, `newBlock`), in the order of the rows as submitted.
 */
export function siteChange(
  values: SiteFormValues,
): { ok: true; change: UpdateSiteConfigurationRequest } | { ok: false; errors: FieldErrors } {
  // A title is a link's: a row turned into text drops it.
  const blocks: SiteBlockInput[] = values.blocks.map(({ id, type, content, enabled, title }) => ({
    ...(id ? { id } : {}),
    type,
    content,
    enabled,
    ...(type === 'link' && title.trim() !== '' ? { title } : {}),
  }));
  const hasNew = values.newBlock.content.trim() !== '';
  if (hasNew)
    blocks.push({ type: values.newBlock.type, content: values.newBlock.content, enabled: true });
  const result = Schema.safeParse({
    bio: values.bio || null,
    avatar_url: values.avatar_url || null,
    location: values.location || null,
    mood: values.mood || null,
    theme_id: values.theme_id || null,
    blocks,
  });
  if (result.success) return { ok: true, change: result.data };
  const newIndex = values.blocks.length;
  return {
    ok: false,
    errors: fieldErrors(
      result.error.issues,
      (path) => {
        if (path[0] !== 'blocks') return String(path[0]);
        if (path.length < 2) return 'newBlock';
        if (path[1] === newIndex) return 'newBlock';
        return `blocks.${String(path[1])}.${path[2] === 'title' ? 'title' : 'content'}`;
      },
      // A link block's content must be a URL; a text block only has a length to exceed.
      Object.fromEntries([
        ['avatar_url', URL_MESSAGE],
        ...values.blocks.flatMap((block, i) =>
          block.type === 'link' ? [[`blocks.${i}.content`, LINK_MESSAGE]] : [],
        ),
        ...(values.newBlock.type === 'link' ? [['newBlock', LINK_MESSAGE]] : []),
      ]),
    ),
  };
}
