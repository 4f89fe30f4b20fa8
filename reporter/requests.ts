import type * as z from 'zod/mini';
import type { IngestEventRequest } from '../contract/events.js';
import { IDEMPOTENCY_KEY } from '../contract/idempotency-key.js';
import { quickIngestEvent, quickIngestMetric } from '../contract/ingest-check.js';
import { jsonFits } from '../contract/json.js';
import { Limits } from '../contract/limits.js';
import type { IngestMetricRequest } from '../contract/metrics.js';
import { Paths } from '../contract/paths.js';
import type { IngestTestsRequest } from '../contract/tests/ingest-tests.js';
import { benchmarkPayloads } from './benchmark-payload.js';
import { STATUS_COLORS } from './color.js';
import { InputError } from './input-error.js';
import type { Inputs, JobStatus } from './inputs.js';
import type { ReportContext } from './report-context.js';
import { githubFacts } from './run-context.js';
import { loadContractSchemas } from './schemas-loader.js';
import { uniqueId } from './unique-id.js';

export type RecordKind = 'event' | 'metric';

/** One request the step will make, already valid under the shared contract. */
export interface PlannedRequest {
  kind: RecordKind;
  path: typeof Paths.ingestEvents | typeof Paths.ingestMetrics;
  body: IngestEventRequest | IngestMetricRequest;
  /** The same for every retry of this request, so a retry can never store a second record. */
  idempotencyKey: string;
  gzip?: undefined;
}

/** A batch of test cases (reporter/tests/send-tests.ts). */
export interface TestsRequest {
  kind: 'tests';
  path: typeof Paths.ingestTests;
  body: IngestTestsRequest;
  idempotencyKey: string;
  /** Send the body compressed: the server said it takes gzip. */
  gzip: boolean;
}

/** Whatever the client sends. */
export type AnyRequest = PlannedRequest | TestsRequest;

/** Which input a field of the request body comes from, for error messages. */
const INPUT_OF: Record<RecordKind, Record<string, string>> = {
  event: {
    projectId: 'project-id',
    eventType: 'event-type',
    description: 'description',
    payload: 'payload',
    color: 'color',
    'chatWebhook.url': 'chat-webhook-url',
    'chatWebhook.title': 'chat-title',
    'chatWebhook.description': 'chat-description',
    'chatWebhook.color': 'chat-color',
  },
  metric: { projectId: 'project-id', payload: 'metrics/metrics-file' },
};

function describe(issue: z.core.$ZodIssue, field: string): string {
  if (field === 'payload') {
    return `must be a JSON object of at most ${Limits.payloadBytes} bytes, the github context included`;
  }
  if (field === 'chatWebhook.url') {
    return 'must be a Discord webhook URL, https://discord.com/api/webhooks/<id>/<token>';
  }
  if (issue.code === 'too_big') return `must be at most ${issue.maximum} characters`;
  if (issue.code === 'too_small') return 'must not be empty';
  return `is not accepted by the API (${issue.code})`;
}

/**
 * Validates with the schema the server uses, so a bad input fails before anything is sent. A body
 * the quick check accepts is one the schema accepts unchanged; any other body goes to the schema.
 */
async function validated<T>(kind: RecordKind, body: T): Promise<T> {
  if (kind === 'event' ? quickIngestEvent(body) : quickIngestMetric(body)) return body;
  const schemas = await loadContractSchemas();
  const schema = kind === 'event' ? schemas.IngestEventRequest : schemas.IngestMetricRequest;
  const result = schema.safeParse(body);
  if (result.success) return result.data as T;
  const issue = result.error.issues[0] as z.core.$ZodIssue;
  const field = issue.path.join('.');
  throw new InputError(INPUT_OF[kind][field] ?? field, describe(issue, field));
}

/**
 * The Idempotency-Key of one record, the same for all its retries: run, attempt, job, step and
 * record kind, plus the execution's own random id. The runner gives matrix legs, and jobs of a
 * reusable workflow called twice, the same run, job and step names; without the execution id two
 * legs sending the same body would be taken for retries of one request, and one record lost.
 */
export function idempotencyKey(context: ReportContext, kind: string, execution: string): string {
  const { github, ci } = context;
  const run =
    github && Number.isInteger(github.runId)
      ? [github.repository, github.runId, github.runAttempt, github.job, github.action]
      : ci.facts.provider !== 'local' && ci.identity.some(Boolean)
        ? [ci.facts.provider, ci.facts.repository ?? '', ...ci.identity]
        : ['local'];
  const key = [...run, kind, execution].join('/');
  if (IDEMPOTENCY_KEY.test(key)) return key;
  // Loaded only here (a key too long or not ASCII): node:crypto costs start-up time (unique-id.ts).
  const { createHash } = process.getBuiltinModule('node:crypto');
  return createHash('sha256').update(key).digest('base64url');
}

function defaultTitle(context: ReportContext, inputs: Inputs, status: JobStatus | undefined) {
  const { github, ci } = context;
  const parts = [
    github?.repository ?? ci.facts.repository,
    github ? github.workflow : ci.facts.job,
    status,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : (inputs.event?.type ?? 'CI');
}

/** Quarantined failures named in the event, at most (like the 50 failures). */
const MAX_QUARANTINED = 50;

/**
 * The event payload with the test results: as many of the failures as fit in the payload limit
 * (50 long names and messages can outgrow it), so a big red build still gets its event.
 */
function withTests(
  payload: Record<string, unknown>,
  tests: Inputs['tests'],
  gate: Inputs['quarantineGate'],
) {
  if (!tests) return payload;
  const failures = [...tests.failures];
  // With --quarantine: which quarantined tests failed (the event says why the build is green).
  const quarantined = gate?.quarantined
    .slice(0, MAX_QUARANTINED)
    .map(({ id, suite, name }) => ({ id, suite, name }));
  for (;;) {
    const full = {
      ...payload,
      tests: { ...tests.counts, failures, ...(quarantined ? { quarantined } : {}) },
    };
    if (failures.length === 0 || jsonFits(full, Limits.payloadBytes)) return full;
    failures.pop();
  }
}

/**
 * The status recorded: the one given, else (when test reports were read) what they say. With
 * `quarantine`, the tests decide unless the build was cancelled: success when every failed test
 * is quarantined, failure when any other test failed (or the list could not be read); without
 * failures, the status given (a build can fail elsewhere) or success.
 */
export function effectiveStatus(inputs: Inputs): JobStatus | undefined {
  const gate = inputs.quarantineGate;
  if (gate && inputs.status !== 'cancelled') {
    if (gate.failing.length > 0) return 'failure';
    if (gate.quarantined.length > 0) return 'success';
    // No failure once retries are merged (a rerun that passed): the one given, else success.
    return inputs.status ?? 'success';
  }
  if (inputs.status || !inputs.tests) return inputs.status;
  return inputs.tests.counts.failed + inputs.tests.counts.errors > 0 ? 'failure' : 'success';
}

/**
 * The event and/or metric request of this step. Rejects with InputError for a bad input.
 * `execution` identifies this run of the step (a random id, drawn once).
 */
export async function planRequests(
  inputs: Inputs,
  context: ReportContext,
  execution: string = uniqueId(),
): Promise<PlannedRequest[]> {
  const facts = inputs.includeContext
    ? {
        ...(context.github ? { github: githubFacts(context.github) } : {}),
        ci: context.ci.facts,
      }
    : {};
  const status = effectiveStatus(inputs);
  const { tests } = inputs;
  const planned: PlannedRequest[] = [];

  if (inputs.event) {
    const { event, chat } = inputs;
    const body = await validated('event', {
      projectId: inputs.projectId,
      eventType: event.type,
      ...(event.description === undefined ? {} : { description: event.description }),
      payload: withTests(
        { ...event.payload, ...(status ? { status } : {}), ...facts },
        tests,
        inputs.quarantineGate,
      ),
      ...(event.color !== undefined
        ? { color: event.color }
        : status
          ? { color: STATUS_COLORS[status] }
          : {}),
      ...(chat
        ? {
            chatWebhook: {
              url: chat.webhookUrl,
              title: chat.title ?? defaultTitle(context, inputs, status),
              ...(chat.description === undefined ? {} : { description: chat.description }),
              ...(chat.color === undefined ? {} : { color: chat.color }),
            },
          }
        : {}),
    });
    planned.push({
      kind: 'event',
      path: Paths.ingestEvents,
      body,
      idempotencyKey: idempotencyKey(context, 'event', execution),
    });
  }

  const { benchmarks } = inputs;
  if (inputs.metrics || tests || (benchmarks && benchmarks.length > 0)) {
    // The step's own metrics, test counts and context go in the first record; benchmarks fill it
    // and as many more as they need (each with the context), within the payload limit.
    const base = (index: number) =>
      index === 0
        ? { ...inputs.metrics, ...(tests ? { tests: tests.counts } : {}), ...facts }
        : facts;
    const payloads =
      benchmarks && benchmarks.length > 0 ? benchmarkPayloads(benchmarks, base) : [base(0)];
    for (const [index, payload] of payloads.entries()) {
      const body = await validated('metric', { projectId: inputs.projectId, payload });
      planned.push({
        kind: 'metric',
        path: Paths.ingestMetrics,
        body,
        idempotencyKey: idempotencyKey(
          context,
          index === 0 ? 'metric' : `metric-${index + 1}`,
          execution,
        ),
      });
    }
  }
  return planned;
}
