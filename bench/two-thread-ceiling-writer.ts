import { fdatasync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { IngestMetricRequest, METRIC_INGESTED } from '../contract/metrics.js';
import { payloadJson } from '../contract/payload.js';
import { newRecordId } from '../server/domain/ids.js';
import { branchOf, seriesOf } from '../server/domain/record-facts.js';
import { declarationsOf } from '../server/domain/verdicts/record-context.js';
import { openConnection } from '../server/storage/sqlite/sqlite-database.js';

/** Request id and body, flattened: [id, body, id, body, ...]. */
export type Batch = (number | string)[];
/** Request id, status and body of each answer, flattened. */
export type Answers = (number | string)[];

/**
 * The writer thread of `two-thread-ceiling.ts`. The batches that arrived since the last group
 * form one transaction, and their answers go back once the log holds them. As in the server's
 * group commit (`group-commit.ts`), the next group waits for the previous group's flush.
 */
const { path, flush } = workerData as { path: string; flush: string };
if (flush !== 'async' && flush !== 'commit') {
  throw new Error(`CEILING_FLUSH must be async or commit, not ${flush}`);
}
const db = openConnection(path, flush === 'commit' ? 'full' : 'normal');
const projectId = db.prepare('SELECT id FROM projects LIMIT 1').pluck().get() as string;
const insert = db.prepare(
  'INSERT INTO metrics (id, project_id, payload, created_at, branch) VALUES (?, ?, ?, ?, ?)',
);
const begin = db.prepare('BEGIN');
const commit = db.prepare('COMMIT');
const rollback = db.prepare('ROLLBACK');
let log: number | undefined;
let queued: Batch[] = [];
let groupQueued = false;
let flushing = false;
/** Set by a failed flush: from then on nothing is answered 200, as in the server. */
let failed = false;
/** Series listed, as `append` lists them for the cells (which this yardstick leaves out). */
let _seriesListed = 0;

const port = parentPort;
if (!port) throw new Error('two-thread-ceiling-writer runs as a worker thread');

function schedule(): void {
  if (groupQueued || flushing || queued.length === 0) return;
  groupQueued = true;
  setImmediate(writeGroup);
}

port.on('message', (batch: Batch) => {
  queued.push(batch);
  schedule();
});

/** One request's answer: [status, body]. */
function store(body: string): [number, string] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [400, '{"error":"Invalid JSON body"}'];
  }
  const checked = IngestMetricRequest.safeParse(parsed);
  if (!checked.success) return [400, '{"error":"Invalid body"}'];
  const metric = checked.data;
  if (metric.projectId !== projectId) return [403, '{"error":"Forbidden"}'];
  if (!declarationsOf(metric.payload).ok) return [400, '{"error":"Invalid units"}'];
  const id = newRecordId();
  const payload = payloadJson(metric.payload);
  insert.run(id, projectId, payload, Date.now(), branchOf(metric.payload));
  _seriesListed += seriesOf(metric.payload).length;
  return [200, JSON.stringify({ message: METRIC_INGESTED, id })];
}

/** Every request of `group` answered 500: nothing of it is acknowledged. */
function refuseAll(group: Batch[]): void {
  const answers: Answers = [];
  for (const batch of group) {
    for (let i = 0; i < batch.length; i += 2) {
      answers.push(batch[i] as number, 500, '{"error":"Not stored"}');
    }
  }
  port?.postMessage(answers);
}

function writeGroup(): void {
  groupQueued = false;
  const group = queued;
  queued = [];
  if (failed) {
    refuseAll(group);
    return;
  }
  const answers: Answers = [];
  try {
    begin.run();
    for (const batch of group) {
      for (let i = 0; i < batch.length; i += 2) {
        answers.push(batch[i] as number, ...store(batch[i + 1] as string));
      }
    }
    commit.run();
  } catch (error) {
    // The server would run the group again with a savepoint per write; a yardstick refuses it.
    if (db.inTransaction) rollback.run();
    process.stderr.write(`writer: ${error}\n`);
    refuseAll(group);
    return;
  }
  if (flush === 'commit') {
    port?.postMessage(answers);
    return;
  }
  // Opened after the first commit, when the log exists; the server's connection keeps it.
  log ??= openSync(`${path}-wal`, 'r+');
  flushing = true;
  fdatasync(log, (error) => {
    flushing = false;
    if (error) {
      failed = true;
      refuseAll(group);
    } else port?.postMessage(answers);
    schedule();
  });
}
