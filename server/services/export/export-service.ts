import type { ExportQuery } from '../../../contract/export.js';
import { InvalidField, NotFound } from '../../domain/domain-errors.js';
import type { ExportRange, KeyOwner, RecordTable, Storage } from '../../storage/storage.js';
import type { ProjectAccess } from '../project-access.js';
import {
  csvHeader,
  eventCsv,
  eventLine,
  headerLine,
  metricCsv,
  metricLine,
} from './export-lines.js';
import { FROM_THE_START, testChunks, testStartAfter } from './test-pages.js';

/** Rows read per query: a page is a few hundred kB at most, and one short read. */
const PAGE = 1_000;

/** The kinds made of events and metrics (`tests` has pages of its own: test-pages.ts). */
type RecordKind = Exclude<ExportQuery['kind'], 'tests'>;

interface Start {
  events: number;
  metrics: number;
}

/**
 * GET /stats/export (docs/export.md): a project's records in stored order, read a page at a time
 * only as fast as the client takes them, so memory stays flat whatever the size.
 */
export function exportService(storage: Storage, access: ProjectAccess) {
  /**
   * Where to resume after the record `id`: past it in its own table; in a `records` export also
   * past the other table's records that came before it (events go first at equal times).
   */
  async function resume(query: ExportQuery & { kind: RecordKind }, id: string): Promise<Start> {
    const tables: RecordTable[] = query.kind === 'records' ? ['events', 'metrics'] : [query.kind];
    for (const table of tables) {
      const found = await storage.exports.seqOf(query.projectId, table, id);
      if (found === undefined) continue;
      const start = { events: 0, metrics: 0, [table]: found.seq };
      if (query.kind === 'records') {
        const other = table === 'events' ? 'metrics' : 'events';
        start[other] = await storage.exports.lastSeqBefore(
          query.projectId,
          other,
          found.createdAt,
          table === 'metrics',
        );
      }
      return start;
    }
    throw new NotFound('record');
  }

  return {
    /**
     * Checks the request (the caller's project, the record to resume after) before anything is
     * sent, so that a refusal is a plain JSON error; then gives the text, chunk by chunk.
     */
    async open(
      caller: Pick<KeyOwner, 'accountId' | 'projectIds'>,
      query: ExportQuery,
    ): Promise<AsyncIterable<string>> {
      await access.assertOwn(caller, query.projectId);
      if (query.from !== undefined && query.to !== undefined && query.from >= query.to) {
        throw new InvalidField('to', 'to: must be after from');
      }
      if (query.kind === 'tests') {
        const start =
          query.after === undefined
            ? FROM_THE_START
            : await testStartAfter(storage, query.projectId, query.after);
        return (async function* () {
          yield query.format === 'csv' ? csvHeader('tests') : headerLine('tests');
          yield* testChunks(storage, query, start);
        })();
      }
      const records = { ...query, kind: query.kind };
      const start =
        query.after === undefined ? { events: 0, metrics: 0 } : await resume(records, query.after);
      return lines(storage, records, start);
    },
  };
}

/** A table's rows from a position on, a page at a time. */
async function* rows<Row extends { seq: number }>(
  page: (after: number) => Promise<Row[]>,
  start: number,
): AsyncGenerator<Row[]> {
  for (let after = start; ; ) {
    const found = await page(after);
    if (found.length > 0) yield found;
    const last = found.at(-1);
    if (found.length < PAGE || last === undefined) return;
    after = last.seq;
  }
}

async function* lines(storage: Storage, query: ExportQuery & { kind: RecordKind }, start: Start) {
  const csv = query.format === 'csv';
  const range: ExportRange = { from: query.from, to: query.to };
  const events = (after: number) => storage.exports.events(query.projectId, range, after, PAGE);
  const metrics = (after: number) => storage.exports.metrics(query.projectId, range, after, PAGE);
  yield csv ? csvHeader(query.kind) : headerLine(query.kind);
  if (query.kind === 'events') {
    for await (const page of rows(events, start.events)) {
      yield page.map((row) => (csv ? eventCsv(row) : eventLine(row))).join('');
    }
    return;
  }
  if (query.kind === 'metrics') {
    for await (const page of rows(metrics, start.metrics)) {
      yield page.map((row) => (csv ? metricCsv(row) : metricLine(row))).join('');
    }
    return;
  }
  // Both tables merged by time, events first at equal times: each is in time order already.
  const eventPages = rows(events, start.events);
  const metricPages = rows(metrics, start.metrics);
  let eventPage = (await eventPages.next()).value ?? [];
  let metricPage = (await metricPages.next()).value ?? [];
  let e = 0;
  let m = 0;
  let chunk = '';
  let inChunk = 0;
  for (;;) {
    if (e === eventPage.length) {
      eventPage = (await eventPages.next()).value ?? [];
      e = 0;
    }
    if (m === metricPage.length) {
      metricPage = (await metricPages.next()).value ?? [];
      m = 0;
    }
    const event = eventPage[e];
    const metric = metricPage[m];
    if (event === undefined && metric === undefined) break;
    if (event !== undefined && (metric === undefined || event.createdAt <= metric.createdAt)) {
      chunk += csv ? eventCsv(event, true) : eventLine(event, true);
      e += 1;
    } else if (metric !== undefined) {
      chunk += csv ? metricCsv(metric, true) : metricLine(metric, true);
      m += 1;
    }
    inChunk += 1;
    if (inChunk === PAGE) {
      yield chunk;
      chunk = '';
      inChunk = 0;
    }
  }
  if (chunk !== '') yield chunk;
}

export type ExportService = ReturnType<typeof exportService>;
