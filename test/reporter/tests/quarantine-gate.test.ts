import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { QuarantinedTest } from '../../../contract/tests/quarantine.js';
import { type Acknowledgement, SendFailure, type StatsClient } from '../../../reporter/client.js';
import type { Inputs } from '../../../reporter/inputs.js';
import { report } from '../../../reporter/report.js';
import { readActionContext } from '../../../reporter/report-context.js';
import type { PlannedRequest } from '../../../reporter/requests.js';
import { CaseTable } from '../../../reporter/tests/case-table.js';
import { gateLines } from '../../../reporter/tests/quarantine-gate.js';
import { reporterInputs } from '../../helpers/reporter-inputs.js';

/**
 * `--quarantine` in process, with a fake client: a red run turns green only when every failed
 * test is quarantined; any other failure, or no list to judge by, keeps it red.
 */

/** The server's id of a test (docs/tests.md: SHA-256 of its normalised identity), written out. */
const idOf = (suite: string, name: string, classname = '', file = '') =>
  createHash('sha256')
    .update(['t', suite, classname, name, file].join('\u0000'))
    .digest('base64url')
    .slice(0, 16);

const entry = (suite: string, name: string, reason = 'flaky'): QuarantinedTest => ({
  id: idOf(suite, name),
  suite,
  classname: null,
  name,
  file: null,
  reason,
  created_at: '2026-11-26T00:00:00.000Z',
  automatic: false,
});

class FakeClient implements StatsClient {
  readonly sent: PlannedRequest[] = [];
  reads = 0;
  constructor(private readonly list: QuarantinedTest[] | Error) {}

  async send(request: PlannedRequest): Promise<Acknowledgement> {
    this.sent.push(request);
    return { id: `${request.kind}-id`, message: 'stored', replayed: false };
  }

  async quarantined(projectId: string): Promise<QuarantinedTest[]> {
    expect(projectId).toBe('p1');
    this.reads += 1;
    if (this.list instanceof Error) throw this.list;
    return this.list;
  }
}

const context = readActionContext({
  GITHUB_REPOSITORY: 'o/r',
  GITHUB_RUN_ID: '7',
  GITHUB_SHA: 'abc',
});

type Case = [suite: string, name: string, status: 'passed' | 'failed' | 'error' | 'skipped'];

function withCases(cases: Case[], extra: Record<string, string> = {}): Inputs {
  const inputs = reporterInputs({
    'event-type': 'build',
    'junit-files': 'x.xml',
    quarantine: 'true',
    ...extra,
  });
  const table = new CaseTable();
  for (const [suite, name, status] of cases) table.add({ suite, name, duration_ms: 1, status });
  const failed = cases.filter(([, , s]) => s === 'failed').length;
  const errors = cases.filter(([, , s]) => s === 'error').length;
  inputs.tests = {
    counts: { total: cases.length, passed: 0, failed, errors, skipped: 0, duration_ms: 1 },
    failures: [],
    files: ['x.xml'],
    cases: table,
  };
  return inputs;
}

const eventPayload = (client: FakeClient) =>
  (client.sent.find((r) => r.kind === 'event') as { body: { payload: Record<string, unknown> } })
    .body.payload;

describe('--quarantine', () => {
  it('turns a red run green when every failed test is quarantined, naming each', async () => {
    const client = new FakeClient([entry('cart', 'discount', 'mock race #412'), entry('x', 'y')]);
    const inputs = withCases(
      [
        ['cart', 'discount', 'failed'],
        ['cart', 'total', 'passed'],
        ['cart', 'later', 'skipped'],
      ],
      { status: 'failure' },
    );
    await report(client, context, inputs);
    expect(client.reads).toBe(1);
    const payload = eventPayload(client);
    expect(payload.status).toBe('success');
    expect(payload.tests).toMatchObject({
      quarantined: [{ id: idOf('cart', 'discount'), suite: 'cart', name: 'discount' }],
    });
    const gate = gateLines(inputs.quarantineGate as NonNullable<Inputs['quarantineGate']>);
    expect(gate).toEqual({
      red: false,
      lines: [
        'quarantined: cart › discount failed (quarantined: mock race #412)',
        '1 failed test(s), all quarantined: the build is reported green',
      ],
    });
  });

  it('keeps the run red when one failure is not quarantined, whatever the status said', async () => {
    const client = new FakeClient([entry('cart', 'discount')]);
    const inputs = withCases(
      [
        ['cart', 'discount', 'failed'],
        ['cart', 'total', 'error'],
      ],
      { status: 'success' },
    );
    await report(client, context, inputs);
    expect(eventPayload(client).status).toBe('failure');
    const gate = gateLines(inputs.quarantineGate as NonNullable<Inputs['quarantineGate']>);
    expect(gate.red).toBe(true);
    expect(gate.lines).toEqual([
      'quarantined: cart › discount failed (quarantined: flaky)',
      '1 failed test(s) not quarantined: cart › total',
    ]);
  });

  it('a retry that passed is no failure; a quarantined test that passed changes nothing', async () => {
    const client = new FakeClient([entry('cart', 'discount')]);
    const inputs = withCases([
      ['cart', 'flaky', 'failed'],
      ['cart', 'flaky', 'passed'],
      ['cart', 'discount', 'passed'],
    ]);
    await report(client, context, inputs);
    expect(inputs.quarantineGate).toEqual({ quarantined: [], failing: [] });
    // No failure once merged: the list is not even read, and the run is a success (the JUnit
    // counts, which count the failed attempt, do not decide).
    expect(client.reads).toBe(0);
    expect(eventPayload(client).status).toBe('success');
    expect(gateLines(inputs.quarantineGate as NonNullable<Inputs['quarantineGate']>)).toEqual({
      red: false,
      lines: [],
    });
  });

  it('hides nothing when the list cannot be read: every failure stays red', async () => {
    const client = new FakeClient(new SendFailure('HTTP 503', 'unavailable'));
    const inputs = withCases([['cart', 'discount', 'failed']], { status: 'failure' });
    await report(client, context, inputs);
    expect(eventPayload(client).status).toBe('failure');
    const gate = gateLines(inputs.quarantineGate as NonNullable<Inputs['quarantineGate']>);
    expect(gate).toEqual({
      red: true,
      lines: [
        '1 failed test(s) (the quarantine list could not be read: HTTP 503): cart › discount',
      ],
    });
  });

  it('without --quarantine, a quarantined failure is a failure as before', async () => {
    const client = new FakeClient([entry('cart', 'discount')]);
    const inputs = withCases([['cart', 'discount', 'failed']], { quarantine: 'false' });
    await report(client, context, inputs);
    expect(client.reads).toBe(0);
    expect(inputs.quarantineGate).toBeUndefined();
    expect(eventPayload(client).status).toBe('failure');
  });

  it('a cancelled build stays cancelled', async () => {
    const client = new FakeClient([entry('cart', 'discount')]);
    const inputs = withCases([['cart', 'discount', 'failed']], { status: 'cancelled' });
    await report(client, context, inputs);
    expect(eventPayload(client).status).toBe('cancelled');
  });
});
