import {
  CSV_COLUMNS,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportKind,
} from '../../../contract/export.js';
import type { ExportEventRow, ExportMetricRow } from '../../storage/storage.js';

/**
 * The lines of an export (docs/export.md), made from stored rows the same way on both backends.
 * The payload is written as its stored JSON text, so a record goes out and back in unchanged and
 * an export of the imported records is the same bytes.
 */

const json = JSON.stringify;
const iso = (ms: number) => new Date(ms).toISOString();

export const headerLine = (kind: ExportKind): string =>
  `${json({ format: EXPORT_FORMAT, version: EXPORT_VERSION, kind })}\n`;

// Keys in EventLine's order (contract/export.ts); a `records` export names each line's kind first.
export const eventLine = (row: ExportEventRow, tagged = false): string =>
  `{${tagged ? '"kind":"event",' : ''}"id":${json(row.id)},"created_at":${json(iso(row.createdAt))},"eventType":${json(row.eventType)},"description":${json(row.description)},"payload":${row.payload ?? 'null'},"color":${json(row.color)}}\n`;

export const metricLine = (row: ExportMetricRow, tagged = false): string =>
  `{${tagged ? '"kind":"metric",' : ''}"id":${json(row.id)},"created_at":${json(iso(row.createdAt))},"payload":${row.payload}}\n`;

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
const field = (value: string | number | null): string => {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};
export const csvRow = (values: readonly (string | number | null)[]) =>
  `${values.map(field).join(',')}\r\n`;

export const csvHeader = (kind: ExportKind): string => csvRow(CSV_COLUMNS[kind]);

export const eventCsv = (row: ExportEventRow, tagged = false): string =>
  csvRow([
    ...(tagged ? ['event'] : []),
    row.id,
    iso(row.createdAt),
    row.eventType,
    row.description,
    row.color,
    row.payload,
  ]);

export const metricCsv = (row: ExportMetricRow, tagged = false): string =>
  csvRow(
    tagged
      ? ['metric', row.id, iso(row.createdAt), null, null, null, row.payload]
      : [row.id, iso(row.createdAt), row.payload],
  );
