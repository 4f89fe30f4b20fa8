import { describe, expect, it } from 'vitest';
import { type Acknowledgement, SendFailure, type StatsClient } from '../../reporter/client.js';
import { InputError } from '../../reporter/input-error.js';
import { report } from '../../reporter/report.js';
import { readActionContext } from '../../reporter/report-context.js';
import type { PlannedRequest } from '../../reporter/requests.js';
import { describeReport } from '../../reporter/summary.js';
import { reporterInputs } from '../helpers/reporter-inputs.js';

/** The reporting core in process, with a fake client: what it plans, sends and reports. */

class FakeClient implements StatsClient {
  readonly sent: PlannedRequest[] = [];
  readonly failures = new Map<string, Error>();

  async send(request: PlannedRequest): Promise<Acknowledgement> {
    this.sent.push(request);
    const failure = this.failures.get(request.kind);
    if (failure) throw failure;
    return { id: `${request.kind}-id`, message: 'stored', replayed: false };
  }
}

const context = readActionContext({
  GITHUB_REPOSITORY: 'octo-org/web-app',
  GITHUB_RUN_ID: '77',
  GITHUB_RUN_ATTEMPT: '1',
  GITHUB_JOB: 'build',
  GITHUB_SHA: 'abc',
});

const inputs = reporterInputs;

describe('report', () => {
  it('sends the event first, then the metric, and reports both acknowledgements', async () => {
    const client = new FakeClient();
    const outcome = await report(
      client,
      context,
      inputs({ 'event-type': 'build', status: 'success', metrics: '{"ms": 5}' }),
    );
    expect(client.sent.map((r) => r.path)).toEqual([
      '/stats/ingest-events',
      '/stats/ingest-metrics',
    ]);
    expect(client.sent[0]?.body).toMatchObject({
      projectId: 'p1',
      eventType: 'build',
      payload: { status: 'success', github: { repository: 'octo-org/web-app', sha: 'abc' } },
    });
    expect(client.sent[1]?.body).toMatchObject({ payload: { ms: 5 } });
    expect(outcome).toEqual({
      dryRun: false,
      results: [
        {
          request: client.sent[0],
          acknowledgement: { id: 'event-id', message: 'stored', replayed: false },
        },
        {
          request: client.sent[1],
          acknowledgement: { id: 'metric-id', message: 'stored', replayed: false },
        },
      ],
    });
  });

  it('a record that fails does not keep the other from being sent', async () => {
    const client = new FakeClient();
    const failure = new SendFailure('HTTP 503', 'unavailable');
    client.failures.set('event', failure);
    const outcome = await report(client, context, inputs({ 'event-type': 'x', metrics: '{}' }));
    expect(client.sent).toHaveLength(2);
    expect(outcome.results[0]).toMatchObject({ error: failure });
    expect(outcome.results[0]).not.toHaveProperty('acknowledgement');
    expect(outcome.results[1]?.acknowledgement?.id).toBe('metric-id');
  });

  it('a request the contract refuses throws before anything is sent', async () => {
    const client = new FakeClient();
    const huge = JSON.stringify({ blob: 'x'.repeat(40_000) });
    await expect(
      report(client, context, inputs({ 'event-type': 'x', payload: huge })),
    ).rejects.toThrow(InputError);
    expect(client.sent).toEqual([]);
  });

  it('each record carries one Idempotency-Key of its own', async () => {
    const client = new FakeClient();
    await report(client, context, inputs({ 'event-type': 'x', metrics: '{}' }));
    const [event, metric] = client.sent.map((r) => r.idempotencyKey);
    expect(event).toMatch(/^octo-org\/web-app\/77\/1\/build\/\/event\/[0-9a-f]{32}$/);
    expect(metric).toMatch(/\/metric\//);
    expect(event?.split('/').at(-1)).toBe(metric?.split('/').at(-1));
  });

  it('a dry run says so', async () => {
    const outcome = await report(
      new FakeClient(),
      context,
      inputs({ 'event-type': 'x', 'dry-run': 'true' }),
    );
    expect(outcome.dryRun).toBe(true);
  });

  const tests = (failed: number, errors: number) => ({
    counts: {
      total: 10,
      passed: 10 - failed - errors,
      failed,
      errors,
      skipped: 0,
      duration_ms: 1200,
    },
    failures: Array.from({ length: failed + errors }, (_, i) => ({
      suite: 's',
      name: `t${i}`,
      message: 'm',
    })),
    located: [],
    files: ['r.xml'],
  });

  it('test results: counts in the metric, counts and failures in the event, status from them', async () => {
    const client = new FakeClient();
    await report(client, context, { ...inputs({ 'event-type': 'ci' }), tests: tests(1, 1) });
    expect(client.sent[0]?.body).toMatchObject({
      color: 0xcf222e,
      payload: {
        status: 'failure',
        tests: { total: 10, failed: 1, errors: 1, failures: [{ name: 't0' }, { name: 't1' }] },
      },
    });
    // Test results alone make a metric record, without the failures list.
    expect(client.sent[1]?.body).toMatchObject({
      payload: {
        tests: { total: 10, passed: 8, failed: 1, errors: 1, skipped: 0, duration_ms: 1200 },
      },
    });
    expect(client.sent[1]?.body.payload).not.toHaveProperty('tests.failures');
  });

  it('all passed: success; a status given wins over the reports', async () => {
    const passed = new FakeClient();
    await report(passed, context, { ...inputs({ 'event-type': 'ci' }), tests: tests(0, 0) });
    expect(passed.sent[0]?.body.payload).toMatchObject({ status: 'success' });
    const given = new FakeClient();
    await report(given, context, {
      ...inputs({ 'event-type': 'ci', status: 'cancelled' }),
      tests: tests(3, 0),
    });
    expect(given.sent[0]?.body.payload).toMatchObject({ status: 'cancelled' });
  });

  it('failures that would outgrow the payload limit are dropped from the end, never the event', async () => {
    const client = new FakeClient();
    const long = {
      ...tests(10, 0),
      failures: Array.from({ length: 50 }, (_, i) => ({
        suite: 'ś'.repeat(200),
        name: `${i}`.padEnd(200, 'n'),
        message: 'ḿ'.repeat(200),
      })),
    };
    await report(client, context, { ...inputs({ 'event-type': 'ci' }), tests: long });
    const payload = client.sent[0]?.body.payload as { tests: { failures: { name: string }[] } };
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThanOrEqual(32 * 1024);
    expect(payload.tests.failures.length).toBeGreaterThan(20);
    expect(payload.tests.failures.length).toBeLessThan(50);
    expect(payload.tests.failures[0]?.name.startsWith('0n')).toBe(true);
  });

  it('reports globs that matched nothing as nothing sent, not as an empty message', async () => {
    const client = new FakeClient();
    const outcome = await report(client, context, inputs({ 'junit-files': 'none/*.xml' }));
    expect(client.sent).toEqual([]);
    expect(describeReport(outcome)).toBe(
      'nothing sent: no event, no metrics, no JUnit report or benchmark found',
    );
  });
});
