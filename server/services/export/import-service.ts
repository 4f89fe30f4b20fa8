import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  EventLine,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  ExportHeader,
  type ImportAnswer,
  type ImportKind,
  MetricLine,
} from '../../../contract/export.js';
import { payloadJson } from '../../../contract/payload.js';
import { fieldText } from '../../../contract/verdicts.js';
import { InvalidField } from '../../domain/domain-errors.js';
// The same faithfulness check as a JSON body's: a line is stored exactly as it reads, or refused.
import { bodyIssuesOf, checkFaithful } from '../../domain/faithful-json.js';
import { branchOf, seriesOf, statusOf } from '../../domain/record-facts.js';
import { declarationsOf } from '../../domain/verdicts/record-context.js';
import type { KeyOwner, NewRecord, Storage } from '../../storage/storage.js';
import type { ProjectAccess } from '../project-access.js';

/** Largest import body (the file as sent); a bigger export goes in as several (docs/export.md). */
export const IMPORT_MAX_BYTES = 1024 ** 3;
/** Records appended at once: one group commit's worth, in the file's order. */
const CHUNK = 500;

/** A refused line: 400 with the line's number first, then what is wrong with it. */
export const refuseLine = (line: number, text: string) =>
  new InvalidField(`line ${line}`, `line ${line}: ${text}`);
const refuse = refuseLine;
/** A `tests` export: out only. */
export const TESTS_NOT_IMPORTED =
  'a tests export cannot be imported: test results come in through POST /stats/ingest-tests (docs/tests.md)';
/** A `records` line that is neither an event nor a metric. */
export const NOT_A_KIND = 'kind: must be "event" or "metric"';

type Parsed = { kind: 'events'; line: EventLine } | { kind: 'metrics'; line: MetricLine };

/** A `records` line's own kind (then read as an events or metrics line without it). */
function kindOf(value: unknown, number: number): 'events' | 'metrics' {
  const record = value as { kind?: unknown } | null;
  const kind = typeof record === 'object' && record !== null ? record.kind : undefined;
  if (kind !== 'event' && kind !== 'metric') throw refuse(number, NOT_A_KIND);
  delete record?.kind;
  return kind === 'event' ? 'events' : 'metrics';
}

/** One line checked as E7 or E8 would check its body, or the sentence that refuses it. */
function parse(fileKind: ImportKind, text: string, number: number): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refuse(number, 'not a JSON object');
  }
  checkFaithful(text, value);
  const unfaithful = bodyIssuesOf(value)?.[0];
  if (unfaithful) throw refuse(number, `${unfaithful.path.join('.')} ${unfaithful.message}`);
  const kind = fileKind === 'records' ? kindOf(value, number) : fileKind;
  const checked = (kind === 'events' ? EventLine : MetricLine).safeParse(value);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw refuse(number, `${issue?.path.join('.') || 'record'}: ${issue?.message ?? 'invalid'}`);
  }
  if (kind === 'metrics') {
    const declared = declarationsOf((checked.data as MetricLine).payload);
    if (!declared.ok) throw refuse(number, fieldText(declared.field));
  }
  return { kind, line: checked.data } as Parsed;
}

function recordOf(projectId: string, parsed: Parsed): NewRecord {
  if (parsed.kind === 'events') {
    const { line } = parsed;
    return {
      kind: 'event',
      row: {
        id: line.id,
        projectId,
        eventType: line.eventType,
        description: line.description,
        payload: line.payload === null ? null : payloadJson(line.payload),
        color: line.color,
        createdAt: line.created_at,
        branch: branchOf(line.payload),
        status: statusOf(line.payload),
      },
      // History is not news: an imported event notifies no one.
      notification: undefined,
    };
  }
  const { line } = parsed;
  return {
    kind: 'metric',
    row: {
      id: line.id,
      projectId,
      payload: payloadJson(line.payload),
      createdAt: line.created_at,
      branch: branchOf(line.payload),
    },
    series: seriesOf(line.payload),
  };
}

/** The records of a chunk that the project does not store yet (nor the chunk before them). */
async function unstored(storage: Storage, projectId: string, chunk: NewRecord[]) {
  const fresh: NewRecord[] = [];
  for (const kind of ['event', 'metric'] as const) {
    const ofKind = chunk.filter((record) => record.kind === kind);
    if (ofKind.length === 0) continue;
    const times = ofKind.map((record) => record.row.createdAt);
    const from = Math.min(...times);
    const to = Math.max(...times);
    // An id of the chunk's time range already stored (or earlier in the chunk): the same record.
    const known = new Set(await storage.records.storedIds(projectId, kind, from, to));
    for (const record of ofKind) {
      if (known.has(record.row.id)) continue;
      known.add(record.row.id);
      fresh.push(record);
    }
  }
  return fresh;
}

/** The file's lines with their numbers (1-based), blank lines skipped. */
async function* numbered(path: string) {
  let number = 0;
  for await (const text of createInterface({
    input: createReadStream(path),
    crlfDelay: Infinity,
  })) {
    number += 1;
    if (text.trim() !== '') yield { number, text };
  }
}

/**
 * POST /stats/import-records (docs/export.md): an NDJSON export goes back into a project. The body
 * is spooled to a temporary file and every line checked before the first is stored, so a bad line
 * changes nothing; then the records are appended in the file's order, a chunk at a time. Memory
 * stays flat whatever the size.
 */
export function importService(
  storage: Storage,
  access: ProjectAccess,
  /** Metrics were imported from `earliest` on: judge them, then re-judge what came after. */
  stored: (projectId: string, earliest: number) => Promise<void>,
  /** Runs the import with background judging paused (judging-worker.ts's `during`). */
  unjudged: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
) {
  return {
    run: (caller: KeyOwner, projectId: string, body: Readable): Promise<ImportAnswer> =>
      unjudged(() => run(caller, projectId, body)),
  };

  async function run(caller: KeyOwner, projectId: string, body: Readable): Promise<ImportAnswer> {
    await access.assertOwn(caller, projectId);
    const dir = await mkdtemp(join(tmpdir(), 'ci-stats-import-'));
    try {
      const path = join(dir, 'records.ndjson');
      let bytes = 0;
      body.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > IMPORT_MAX_BYTES) body.destroy(tooLarge());
      });
      await pipeline(body, createWriteStream(path));

      let kind: ImportKind | undefined;
      for await (const { number, text } of numbered(path)) {
        if (kind === undefined) {
          kind = headerOf(text, number);
          continue;
        }
        parse(kind, text, number);
      }
      if (kind === undefined) throw refuse(1, `the header line is missing: ${headerExample()}`);

      // Stored back-dated, with their own times, whatever the server stores already
      // (docs/decisions.md); a record the project stores already (same id, same time) is
      // skipped, so a re-run of the same file stores nothing twice.
      let count = 0;
      let skipped = 0;
      let earliest = Number.POSITIVE_INFINITY;
      let chunk: NewRecord[] = [];
      const flush = async () => {
        const fresh = await unstored(storage, projectId, chunk);
        skipped += chunk.length - fresh.length;
        chunk = [];
        if (fresh.length === 0) return;
        await storage.records.importBatch(fresh);
        count += fresh.length;
        for (const record of fresh) earliest = Math.min(earliest, record.row.createdAt);
      };
      let header = true;
      for await (const { number, text } of numbered(path)) {
        if (header) {
          header = false;
          continue;
        }
        chunk.push(recordOf(projectId, parse(kind, text, number)));
        if (chunk.length === CHUNK) await flush();
      }
      await flush();
      if (kind !== 'events' && count > 0) await stored(projectId, earliest);
      return { projectId, kind, imported: count, skipped };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

const headerExample = () =>
  JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION, kind: 'events' });

function headerOf(text: string, number: number): ImportKind {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const header = ExportHeader.safeParse(value);
  if (!header.success) {
    throw refuse(
      number,
      `the first line must be the export's header, ${headerExample()} (or kind "metrics", "records")`,
    );
  }
  if (header.data.kind === 'tests') throw refuse(number, TESTS_NOT_IMPORTED);
  return header.data.kind;
}

function tooLarge() {
  return Object.assign(
    new Error(
      `The import is larger than ${IMPORT_MAX_BYTES} bytes: import it in parts (from, to).`,
    ),
    {
      statusCode: 413,
    },
  );
}

export type ImportService = ReturnType<typeof importService>;
