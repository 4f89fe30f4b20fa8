import type { HeadlineFigure } from '../../../../contract/project-page.js';
import { branchOf, statusOf } from '../../../domain/record-facts.js';
import type { ProjectView, ViewQuery } from '../../../services/project-view-service.js';
import { viewQueryOf } from './view-query.js';
import { linksOf } from './views/event-links.js';

/** The tables the page's CSV links export, each exactly as the page shows it (range, filters). */
export const CSV_TABLES = [
  'headline',
  'build-health',
  'event-types',
  'workflows',
  'keys',
  'chart',
  'timeline',
] as const;
export type CsvTable = (typeof CSV_TABLES)[number];

export const CSV_TYPE = 'text/csv; charset=utf-8';
/** The Content-Disposition of an export's answer (its name has only word characters, . and -). */
export const attachment = (file: string) => `attachment; filename="${file}"`;

/** What an export's address asks for: the page's query, the table, and a chart's key. */
export interface CsvRequest {
  query: ViewQuery;
  table: CsvTable;
  key: string | undefined;
  /** The file's name, `<table>[-<key>].csv`. */
  file: string;
}

/**
 * The export asked for by `?table=` (and `key` for a chart) with the page's own query (range,
 * filters, the timeline's page); undefined when it makes no sense (400). A chart asked for is
 * drawn (and so read) whatever the key list's page holds.
 */
export function csvRequestOf(raw: unknown): CsvRequest | undefined {
  const q = (raw ?? {}) as { table?: unknown; key?: unknown };
  const query = viewQueryOf(raw);
  const table = CSV_TABLES.find((name) => name === q.table);
  const key = typeof q.key === 'string' ? q.key : undefined;
  if (!query || !table || (table === 'chart' && key === undefined)) return undefined;
  return {
    query: table === 'chart' ? { ...query, charts: [key as string] } : query,
    table,
    key,
    file: `${table}${key === undefined ? '' : `-${key.replace(/[^\w.-]+/g, '_')}`}.csv`,
  };
}

type Cell = string | number | null;

/**
 * RFC 4180 text: fields with a comma, quote or line break quoted, quotes doubled; null is empty.
 * A text field that a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a
 * leading apostrophe (OWASP's advice): keys and event types are the projects' own texts.
 */
export function csvOf(header: string[], rows: Cell[][]): string {
  const field = (cell: Cell) => {
    if (cell === null) return '';
    if (typeof cell === 'number') return String(cell);
    const text = /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [header, ...rows]
    .map((row) => row.map(field).join(','))
    .join('\r\n')
    .concat('\r\n');
}

const figureRow = (name: string, figure: HeadlineFigure): Cell[] => [
  name,
  figure.value,
  figure.previous,
  figure.value === null || figure.previous === null ? null : figure.value - figure.previous,
  figure.direction,
  figure.unit,
];

/** The CSV of one table of the view; undefined when `key` names no chart drawn. */
export function exportTable(
  view: ProjectView,
  table: CsvTable,
  key: string | undefined,
): string | undefined {
  switch (table) {
    case 'headline': {
      const h = view.headline;
      return csvOf(
        ['figure', 'value', 'previous', 'change', 'better', 'unit'],
        [
          figureRow('builds', h.builds),
          figureRow('success_rate', h.success_rate),
          figureRow('duration_p50', h.duration_p50),
          figureRow('duration_p95', h.duration_p95),
          figureRow('active_alerts', h.active_alerts),
          figureRow('flaky_tests', h.flaky_tests),
        ],
      );
    }
    case 'build-health':
      return csvOf(
        ['start', 'end', 'success', 'failure', 'cancelled', 'other'],
        view.summary.buckets.map((b) => [
          b.start,
          b.end,
          b.success,
          b.failure,
          b.cancelled,
          b.other,
        ]),
      );
    case 'timeline':
      return csvOf(
        ['time', 'event_type', 'status', 'branch', 'description', 'commit', 'links'],
        view.timeline.events.map((event) => {
          const { commit, links } = linksOf(event);
          return [
            event.created_at,
            event.eventType,
            statusOf(event.payload),
            branchOf(event.payload),
            event.description,
            commit ?? null,
            links.map(([label, href]) => `${label}: ${href}`).join(' '),
          ];
        }),
      );
    case 'event-types':
      return csvOf(
        ['event_type', 'runs', 'success_rate', 'success', 'failure', 'cancelled', 'other'],
        view.eventTypes.rows.map((r) => [
          r.eventType,
          r.runs,
          r.successRate,
          r.success,
          r.failure,
          r.cancelled,
          r.other,
        ]),
      );
    case 'workflows':
      return csvOf(
        ['workflow', 'runs', 'success_rate', 'success', 'failure', 'duration_p50'],
        view.workflows.rows.map((r) => [
          r.workflow,
          r.runs,
          r.successRate,
          r.success,
          r.failure,
          r.durationP50,
        ]),
      );
    case 'keys':
      return csvOf(
        ['key', 'records', 'last_value', 'last_at', 'unit', 'direction'],
        view.keys.map((k) => [k.key, k.count, k.last_value, k.last_at, k.unit, k.direction]),
      );
    case 'chart': {
      const series = view.series.find((s) => s.key === key);
      if (!series) return undefined;
      return csvOf(
        ['start', 'end', 'count', 'min', 'max', 'avg', 'p50', 'p95', 'last'],
        series.buckets.map((b) => [
          b.start,
          b.end,
          b.count,
          b.min,
          b.max,
          b.avg,
          b.p50,
          b.p95,
          b.last,
        ]),
      );
    }
  }
}
