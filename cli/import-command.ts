import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Headers } from '../contract/headers.js';
import { BenchmarkFormatError } from '../reporter/benchmarks/result.js';
import type { Transport } from '../reporter/client.js';
import { gabHistory, type ImportRecord } from '../reporter/import/gab-history.js';
import { IMPORT_HELP } from './help.js';
import { type Console, ExitCode } from './report-command.js';
import { VERSION } from './version.js';

/** Records per request: a few MB of NDJSON, a few seconds of the server's time. */
export const IMPORT_BATCH = 5000;
const TIMEOUT_MS = 120_000;
/** Attempts per batch: a re-sent batch stores nothing twice (the server skips known ids). */
const ATTEMPTS = 3;

class UsageError extends Error {}

/**
 * The id a record of the history gets: the same on every run (from its stable key), so that the
 * server recognises a batch sent again and stores nothing twice (docs/export.md, Import).
 */
export const importIdOf = (record: ImportRecord) =>
  `gab-${createHash('sha256').update(record.key).digest('hex').slice(0, 40)}`;

function options(args: string[]) {
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        file: { type: 'string' },
        'project-id': { type: 'string' },
        project: { type: 'string' },
        'base-url': { type: 'string' },
        branch: { type: 'string' },
        help: { type: 'boolean' },
        h: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The NDJSON bodies of import-records (kind metrics), oldest record first. */
export function importBodies(records: readonly ImportRecord[], size = IMPORT_BATCH): string[] {
  // Stable sort: records of one time keep the file's order.
  const sorted = [...records].sort((a, b) =>
    a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0,
  );
  const header = JSON.stringify({ format: 'ci-stats-records', version: 1, kind: 'metrics' });
  const bodies: string[] = [];
  for (let i = 0; i < sorted.length; i += size) {
    const lines = sorted
      .slice(i, i + size)
      .map((r) =>
        JSON.stringify({ id: importIdOf(r), created_at: r.created_at, payload: r.payload }),
      );
    bodies.push(`${header}\n${lines.join('\n')}\n`);
  }
  return bodies;
}

/**
 * `ci-stats import github-action-benchmark --file <data.js|data.json>`: the history of
 * github-action-benchmark's gh-pages branch into a project, in batches through
 * POST /stats/import-records. A run cut short is run again: what is stored is skipped.
 */
export async function importCommand(
  args: string[],
  transport: Transport,
  console: Console,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; abandonedRequests: boolean }> {
  const done = (code: number) => ({ code, abandonedRequests: false });
  let bodies: string[];
  let target: { url: string; apiKey: string };
  let read: { entries: number; sets: string[]; records: number };
  try {
    const { values, positionals } = options(args);
    if (values.help || values.h) {
      console.out(IMPORT_HELP);
      return done(ExitCode.ok);
    }
    const [source, ...extra] = positionals;
    if (source !== 'github-action-benchmark' || extra.length > 0)
      throw new UsageError(
        `ci-stats import: the source must be github-action-benchmark, found ${positionals.length === 0 ? 'none' : `"${positionals.join(' ')}"`}`,
      );
    const file = values.file;
    if (!file) throw new UsageError('ci-stats import: --file <data.js or data.json> is needed');
    const apiKey = env.CI_STATS_API_KEY ?? '';
    const baseUrl = values['base-url'] || env.CI_STATS_BASE_URL || '';
    const projectId = values['project-id'] || values.project || env.CI_STATS_PROJECT_ID || '';
    if (!apiKey) throw new UsageError('ci-stats import: CI_STATS_API_KEY is not set');
    if (!baseUrl) throw new UsageError('ci-stats import: --base-url (CI_STATS_BASE_URL) is needed');
    if (!projectId)
      throw new UsageError('ci-stats import: --project-id (CI_STATS_PROJECT_ID) is needed');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`ci-stats import: cannot read ${file}: ${(error as Error).message}`);
    }
    let history: ReturnType<typeof gabHistory>;
    try {
      history = gabHistory(text, values.branch);
    } catch (error) {
      if (error instanceof BenchmarkFormatError)
        throw new UsageError(`ci-stats import: ${file}: ${error.message}`);
      throw error;
    }
    bodies = importBodies(history.records);
    read = { entries: history.entries, sets: history.sets, records: history.records.length };
    target = {
      url: `${baseUrl.replace(/\/+$/, '')}/stats/import-records?projectId=${encodeURIComponent(projectId)}`,
      apiKey,
    };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.err(error.message);
    return done(ExitCode.usage);
  }

  let imported = 0;
  let skipped = 0;
  for (const [n, body] of bodies.entries()) {
    const answer = await send(transport, target, body);
    if ('error' in answer) {
      console.err(
        `ci-stats import: batch ${n + 1} of ${bodies.length} failed: ${answer.error} (${imported} records imported so far; run the same command again to go on)`,
      );
      return done(ExitCode.failed);
    }
    imported += answer.imported;
    skipped += answer.skipped;
  }
  console.out(
    `imported ${imported} records (${skipped} already there) from ${read.entries} entries of ${read.sets.length} benchmark sets`,
  );
  return done(ExitCode.ok);
}

async function send(
  transport: Transport,
  target: { url: string; apiKey: string },
  body: string,
): Promise<{ imported: number; skipped: number } | { error: string }> {
  let last = '';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const exchange = transport.request(
      'POST',
      target.url,
      body,
      {
        [Headers.apiKey]: target.apiKey,
        'content-type': 'application/x-ndjson',
        'user-agent': `ci-stats-cli/${VERSION}`,
      },
      TIMEOUT_MS,
    );
    try {
      const response = await exchange.response;
      if (response.status === 200) return JSON.parse(response.body);
      last = `HTTP ${response.status}: ${errorOf(response.body)}`;
      // A refusal is final; a busy or failing server is asked again (sending twice is harmless).
      if (response.status < 500 && response.status !== 429) return { error: last };
    } catch (error) {
      last = (error as Error).message;
      exchange.abandon();
    }
    await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
  }
  return { error: last };
}

function errorOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // not JSON: its text
  }
  return body.slice(0, 200);
}
