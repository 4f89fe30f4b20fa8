import { describe, expect, it } from 'vitest';
import { isRetryableStatus, parseRetryAfter } from '../../contract/retry.js';
import { InputError } from '../../reporter/input-error.js';
import { readActionContext } from '../../reporter/report-context.js';
import { idempotencyKey, planRequests } from '../../reporter/requests.js';
import type { RunContext } from '../../reporter/run-context.js';
import { reporterInputs } from '../helpers/reporter-inputs.js';

const WEBHOOK = 'https://discord.com/api/webhooks/123456789012345678/token_abc';
const context = readActionContext({
  GITHUB_REPOSITORY: 'octo-org/web-app',
  GITHUB_RUN_ID: '77',
  GITHUB_RUN_ATTEMPT: '1',
  GITHUB_JOB: 'build',
  GITHUB_ACTION: '__run_2',
  GITHUB_WORKFLOW: 'CI',
});
const inputs = reporterInputs;
const withRun = (change: Partial<RunContext>) => ({
  ...context,
  github: { ...(context.github as RunContext), ...change },
});

describe('planRequests', () => {
  it('builds the event with status, colour, context and a default chat title', async () => {
    const [event] = await planRequests(
      inputs({
        'event-type': 'build',
        status: 'failure',
        payload: '{"a":1}',
        'chat-webhook-url': WEBHOOK,
      }),
      context,
    );
    expect(event?.path).toBe('/stats/ingest-events');
    expect(event?.body).toMatchObject({
      projectId: 'p1',
      eventType: 'build',
      color: 0xcf222e,
      payload: { a: 1, status: 'failure', github: { repository: 'octo-org/web-app', run_id: 77 } },
      chatWebhook: { url: WEBHOOK, title: 'octo-org/web-app · CI · failure' },
    });
  });

  it('an explicit colour wins over the status colour; include-context false leaves github out', async () => {
    const [event] = await planRequests(
      inputs({
        'event-type': 'x',
        status: 'success',
        color: '#000001',
        'include-context': 'false',
      }),
      context,
    );
    expect(event?.body).toEqual({
      projectId: 'p1',
      eventType: 'x',
      payload: { status: 'success' },
      color: 1,
    });
  });

  it('sends the event first, then the metric', async () => {
    const planned = await planRequests(
      inputs({ 'event-type': 'x', metrics: '{"ms": 5}' }),
      context,
    );
    expect(planned.map((p) => p.kind)).toEqual(['event', 'metric']);
    expect(planned[1]?.body).toMatchObject({
      projectId: 'p1',
      payload: { ms: 5, github: { job: 'build' } },
    });
  });

  it.each([
    [{ 'event-type': 'x'.repeat(101) }, 'event-type', 'at most 100'],
    [{ 'event-type': 'x', description: 'd'.repeat(2001) }, 'description', 'at most 2000'],
    [
      { 'event-type': 'x', 'chat-webhook-url': 'https://evil.example/api/webhooks/1/t' },
      'chat-webhook-url',
      'Discord webhook URL',
    ],
    [
      { 'event-type': 'x', 'chat-webhook-url': WEBHOOK, 'chat-title': 't'.repeat(257) },
      'chat-title',
      'at most 256',
    ],
    [
      { 'event-type': 'x', payload: JSON.stringify({ big: 'x'.repeat(33_000) }) },
      'payload',
      '32768 bytes',
    ],
    [
      { metrics: JSON.stringify({ big: 'x'.repeat(33_000) }) },
      'metrics/metrics-file',
      '32768 bytes',
    ],
    [{ 'event-type': 'x', 'project-id': 'p'.repeat(129) }, 'project-id', 'at most 128'],
  ])('the shared contract refuses %j naming %s', async (extra, input, text) => {
    let error: unknown;
    try {
      await planRequests(inputs(extra), context);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).input).toBe(input);
    expect((error as InputError).message).toContain(text);
  });
});

describe('idempotencyKey', () => {
  it('names the run, attempt, job, step, kind and execution', () => {
    expect(idempotencyKey(context, 'metric', 'e1')).toBe(
      'octo-org/web-app/77/1/build/__run_2/metric/e1',
    );
  });

  it('differs by kind, attempt, step and execution', () => {
    const key = idempotencyKey(context, 'metric', 'e1');
    expect(idempotencyKey(context, 'event', 'e1')).not.toBe(key);
    expect(idempotencyKey(withRun({ runAttempt: 2 }), 'metric', 'e1')).not.toBe(key);
    expect(idempotencyKey(withRun({ action: '__run_3' }), 'metric', 'e1')).not.toBe(key);
    // Matrix legs share run, job and step: only the execution tells them apart.
    expect(idempotencyKey(context, 'metric', 'e2')).not.toBe(key);
  });

  it('every request of one execution keeps its key; every execution draws a new one', async () => {
    const plan = () => planRequests(inputs({ 'event-type': 'x', metrics: '{"a":1}' }), context);
    const [event, metric] = await plan();
    expect(event?.idempotencyKey).toMatch(
      /^octo-org\/web-app\/77\/1\/build\/__run_2\/event\/[0-9a-f]{32}$/,
    );
    expect(metric?.idempotencyKey.split('/').at(-1)).toBe(event?.idempotencyKey.split('/').at(-1));
    expect((await plan())[0]?.idempotencyKey).not.toBe(event?.idempotencyKey);
  });

  it('outside Actions, and with odd names, it stays header-safe', () => {
    expect(idempotencyKey(readActionContext({}), 'event', 'e1')).toBe('local/event/e1');
    const long = withRun({ job: 'j'.repeat(300) });
    expect(idempotencyKey(long, 'event', 'e1')).toMatch(/^[\x21-\x7e]{1,255}$/);
  });
});

describe('retry policy', () => {
  it('retries network-like answers only', () => {
    for (const status of [429, 500, 502, 503, 504]) expect(isRetryableStatus(status)).toBe(true);
    for (const status of [400, 401, 403, 404, 408, 409, 413, 415, 422]) {
      expect(isRetryableStatus(status)).toBe(false);
    }
  });

  it('reads Retry-After in seconds or as a date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('later', now)).toBeUndefined();
  });
});
