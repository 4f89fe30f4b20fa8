import { decodeCursor } from '../../../../contract/cursor.js';
import { TestLimits } from '../../../../contract/tests/test-limits.js';
import { TEST_ORDERS, type TestOrder } from '../../../../contract/tests/test-queries.js';
import {
  customRange,
  DEFAULT_PRESET,
  presetRange,
  RANGE_PRESETS,
  type RangePreset,
  type ViewRange,
} from '../../../domain/view-ranges.js';

export const TABS = ['flaky', 'failing', 'slowest', 'all'] as const;
export type Tab = (typeof TABS)[number];

/** get-tests' sort of each tab: `all` lists every test by name. */
export const sortOfTab = (tab: Tab) => (tab === 'all' ? 'name' : tab);

/** The Tests view's query: the project page's range and branch, the tab, a search, a page. */
export interface TestsPageQuery {
  range: ViewRange;
  branch: string | undefined;
  tab: Tab;
  /** A column the list is ordered by instead of the tab's own order, and which way. */
  order: TestOrder | undefined;
  dir: 'asc' | 'desc' | undefined;
  q: string | undefined;
  /** The page's offset (the API's cursor), undefined for the first. */
  cursor: number | undefined;
  /** The cursor as it was written, for links. */
  cursorText: string | undefined;
}

const one = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The query, or undefined when it makes no sense (the page answers 400). */
export function testsQueryOf(query: unknown, now = Date.now()): TestsPageQuery | undefined {
  const q = (query ?? {}) as Record<string, unknown>;
  const preset = one(q.range) ?? DEFAULT_PRESET;
  const range =
    preset === 'custom'
      ? customRange(one(q.from) ?? '', one(q.to) ?? '')
      : preset in RANGE_PRESETS
        ? presetRange(preset as RangePreset, now)
        : undefined;
  const branch = one(q.branch) || undefined;
  const tab = (one(q.tab) || 'flaky') as Tab;
  const order = (one(q.order) || undefined) as TestOrder | undefined;
  const dir = (one(q.dir) || undefined) as 'asc' | 'desc' | undefined;
  const search = one(q.q)?.trim() || undefined;
  const cursorText = one(q.cursor) || undefined;
  const cursor = cursorText === undefined ? undefined : decodeCursor(cursorText);
  if (!range || !TABS.includes(tab)) return undefined;
  if (order !== undefined && !TEST_ORDERS.includes(order)) return undefined;
  if (dir !== undefined && dir !== 'asc' && dir !== 'desc') return undefined;
  if (branch !== undefined && branch.length > TestLimits.branchLength) return undefined;
  if (search !== undefined && search.length > TestLimits.queryLength) return undefined;
  if (cursorText !== undefined && cursor === undefined) return undefined;
  return { range, branch, tab, order, dir, q: search, cursor, cursorText };
}

/**
 * The Tests view's address with these settings (and another tab, order or page: another tab
 * takes its own order, another order starts at the first page).
 */
export function testsHref(
  path: string,
  query: TestsPageQuery,
  change: Partial<Pick<TestsPageQuery, 'tab' | 'order' | 'dir' | 'cursorText'>> = {},
): string {
  const params = new URLSearchParams();
  const { range } = query;
  if (range.preset === 'custom') {
    params.set('range', 'custom');
    params.set('from', new Date(range.from).toISOString().slice(0, 10));
    params.set('to', new Date(range.to - 1).toISOString().slice(0, 10));
  } else params.set('range', range.preset);
  if (query.branch !== undefined) params.set('branch', query.branch);
  params.set('tab', change.tab ?? query.tab);
  const sameTab = change.tab === undefined || change.tab === query.tab;
  const order = 'order' in change ? change.order : sameTab ? query.order : undefined;
  const dir = 'order' in change ? change.dir : sameTab ? query.dir : undefined;
  if (order !== undefined) params.set('order', order);
  if (dir !== undefined) params.set('dir', dir);
  if (query.q !== undefined) params.set('q', query.q);
  const cursor = 'cursorText' in change ? change.cursorText : undefined;
  if (cursor !== undefined) params.set('cursor', cursor);
  return `${path}?${params}`;
}
