import { readFileSync } from 'node:fs';
import { isJsonObject } from '../contract/json.js';
import type { BenchmarkResult } from './benchmarks/result.js';
import { BENCHMARK_TOOLS, isBenchmarkTool, unknownTool } from './benchmarks/tool-names.js';
import { type JobStatus, parseJobStatus } from './ci-status.js';
import { parseColor } from './color.js';
import { InputError } from './input-error.js';
import type { TestResults } from './junit.js';
import type { QuarantineGate } from './tests/quarantine-gate.js';

export type { JobStatus } from './ci-status.js';

/** Everything the step was told, parsed and checked; nothing here has been sent. */
export interface Inputs {
  apiKey: string;
  baseUrl: string;
  projectId: string;
  event:
    | {
        type: string;
        description: string | undefined;
        payload: Record<string, unknown>;
        color: number | undefined;
      }
    | undefined;
  /** Undefined when neither `metrics` nor `metrics-file` is set. */
  metrics: Record<string, unknown> | undefined;
  /** Globs of JUnit XML reports (`junit-files`, one per line). */
  junitGlobs: string[];
  /** Globs of CTRF JSON reports (`ctrf-files`, one per line). */
  ctrfGlobs: string[];
  /** What the reports said, once the entry has read them (they add a `tests` object). */
  tests?: TestResults;
  /** `quarantine`: failures of quarantined tests do not fail the build (docs/tests.md). */
  quarantine: boolean;
  /** With `quarantine`, the run's failures split by the project's list, once read. */
  quarantineGate?: QuarantineGate;
  /** The harness whose output `benchmarkFiles` hold (`benchmark-tool`). */
  benchmarkTool: string | undefined;
  /** Paths or globs of benchmark output (`benchmark-file`, one per line). */
  benchmarkFiles: string[];
  /** What the files said, once the entry has read them (they add `benchmarks`, `units`, `directions`). */
  benchmarks?: BenchmarkResult[];
  status: JobStatus | undefined;
  /** What was set but not usable, and left out rather than lose the record (the entry prints them). */
  warnings: InputWarning[];
  chat:
    | {
        webhookUrl: string;
        title: string | undefined;
        description: string | undefined;
        color: number | undefined;
      }
    | undefined;
  includeContext: boolean;
  failOnError: boolean;
  timeoutSeconds: number;
  retries: number;
  dryRun: boolean;
}

/** An input that was set but is not usable; like InputError, but the report goes on without it. */
export interface InputWarning {
  input: string;
  detail: string;
}

/** Reads one input as the runner passes it ('' when unset). */
export type InputReader = (name: string) => string;

function jsonObject(name: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError(name, `is not valid JSON (${(error as Error).message})`);
  }
  if (!isJsonObject(value)) {
    throw new InputError(name, 'must be a JSON object, like {"duration_ms": 1234}');
  }
  return value;
}

function boolean(name: string, text: string, fallback: boolean): boolean {
  const value = text.trim().toLowerCase();
  if (value === '') return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new InputError(name, `must be true or false, not "${text}"`);
}

function number(
  name: string,
  text: string,
  fallback: number,
  min: number,
  max: number,
  integer: boolean,
) {
  const value = text.trim() === '' ? fallback : Number(text);
  if (
    !Number.isFinite(value) ||
    value < min ||
    value > max ||
    (integer && !Number.isInteger(value))
  ) {
    throw new InputError(
      name,
      `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`,
    );
  }
  return value;
}

function color(name: string, text: string): number | undefined {
  const value = parseColor(text);
  if (value === null)
    throw new InputError(name, 'must be an integer 0-16777215, #rrggbb or 0xrrggbb');
  return value;
}

function baseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new InputError('base-url', 'must be an absolute URL such as https://stats.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InputError('base-url', 'must use https (or http)');
  }
  if (url.search || url.hash) throw new InputError('base-url', 'must not have a query or fragment');
  return url.href.replace(/\/+$/, '');
}

/**
 * Reads and checks every input. Field rules that the API defines (lengths, the webhook URL) are
 * checked later by the shared contract, when the requests are built.
 */
export function parseInputs(
  read: InputReader,
  readFile = (path: string) => readFileSync(path, 'utf8'),
): Inputs {
  const text = (name: string) => read(name).trim();
  const required = (name: string) => {
    const value = text(name);
    if (value === '') throw new InputError(name, 'is required');
    return value;
  };
  const optional = (name: string) => text(name) || undefined;

  const apiKey = required('api-key');
  const eventType = optional('event-type');
  // Without a webhook URL (a fork's pull request gets no secrets) the other chat-* inputs are
  // unused, but still checked, so a typo shows up in the run where it was written.
  const webhookUrl = optional('chat-webhook-url');
  const chatColor = color('chat-color', read('chat-color'));
  const description = optional('description');
  const payload =
    optional('payload') === undefined ? undefined : jsonObject('payload', text('payload'));
  const eventColor = color('color', read('color'));

  const warnings: InputWarning[] = [];
  const status = parseJobStatus(read('status'));
  if (status.warning) warnings.push({ input: 'status', detail: status.warning });

  const inlineMetrics = optional('metrics');
  const metricsFile = optional('metrics-file');
  let metrics: Record<string, unknown> | undefined;
  if (metricsFile !== undefined) {
    let content: string;
    try {
      content = readFile(metricsFile);
    } catch (error) {
      throw new InputError(
        'metrics-file',
        `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
    metrics = jsonObject('metrics-file', content);
  }
  if (inlineMetrics !== undefined) {
    // The file gives the bulk, the inline object adds to it or overrides it.
    metrics = { ...metrics, ...jsonObject('metrics', inlineMetrics) };
  }

  const globs = (name: string) =>
    read(name)
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '');
  const junitGlobs = globs('junit-files');
  const ctrfGlobs = globs('ctrf-files');
  const benchmarkTool = optional('benchmark-tool');
  const benchmarkFiles = globs('benchmark-file');
  if (benchmarkTool !== undefined && !isBenchmarkTool(benchmarkTool))
    throw unknownTool(benchmarkTool);
  if (benchmarkTool !== undefined && benchmarkFiles.length === 0) {
    throw new InputError(
      'benchmark-file',
      'is needed with benchmark-tool: the file the harness wrote',
    );
  }
  if (benchmarkTool === undefined && benchmarkFiles.length > 0) {
    throw new InputError(
      'benchmark-tool',
      `is needed with benchmark-file: one of ${BENCHMARK_TOOLS.join(', ')}`,
    );
  }

  if (
    eventType === undefined &&
    metrics === undefined &&
    junitGlobs.length === 0 &&
    ctrfGlobs.length === 0 &&
    benchmarkFiles.length === 0
  ) {
    throw new InputError(
      'event-type',
      'set event-type to send an event, metrics, metrics-file, junit-files, ctrf-files or benchmark-file to send a metric, or both',
    );
  }
  if (eventType === undefined) {
    const stray = [
      ['description', description],
      ['payload', payload],
      ['color', eventColor],
    ].find(([, value]) => value !== undefined);
    if (stray)
      throw new InputError(stray[0] as string, 'needs event-type: it belongs to the event');
  }
  const quarantine = boolean('quarantine', read('quarantine'), false);
  if (quarantine && junitGlobs.length === 0 && ctrfGlobs.length === 0) {
    throw new InputError(
      'quarantine',
      'needs junit-files or ctrf-files: the failed tests are read from the reports',
    );
  }
  if (webhookUrl !== undefined && eventType === undefined) {
    throw new InputError(
      'chat-webhook-url',
      'needs event-type: the notification is sent with the event',
    );
  }

  return {
    apiKey,
    baseUrl: baseUrl(required('base-url')),
    projectId: required('project-id'),
    event:
      eventType === undefined
        ? undefined
        : { type: eventType, description, payload: payload ?? {}, color: eventColor },
    metrics,
    junitGlobs,
    ctrfGlobs,
    quarantine,
    benchmarkTool,
    benchmarkFiles,
    status: status.status,
    warnings,
    chat:
      webhookUrl === undefined
        ? undefined
        : {
            webhookUrl,
            title: optional('chat-title'),
            description: optional('chat-description'),
            color: chatColor,
          },
    includeContext: boolean('include-context', read('include-context'), true),
    failOnError: boolean('fail-on-error', read('fail-on-error'), false),
    timeoutSeconds: number('timeout-seconds', read('timeout-seconds'), 10, 0.1, 300, false),
    retries: number('retries', read('retries'), 3, 0, 10, true),
    dryRun: boolean('dry-run', read('dry-run'), false),
  };
}
