import type { HeadlineFigure } from '../../../../contract/project-page.js';
import type { ProjectView } from '../../../services/project-view-service.js';

/** The tables the page's CSV links export, each exactly as the page shows it (range, filters). */
export const CSV_TABLES = ['headline', 'event-types', 'workflows', 'keys', 'chart'] as const;
export type CsvTable = (typeof CSV_TABLES)[number];

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
