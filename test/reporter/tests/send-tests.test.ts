import { describe, expect, it, vi } from 'vitest';
import {
  type Exchange,
  HttpStatsClient,
  type TransportResponse,
} from '../../../reporter/client.js';
import type { Inputs } from '../../../reporter/inputs.js';
import { readActionContext } from '../../../reporter/report-context.js';
import { CaseTable } from '../../../reporter/tests/case-table.js';
import { sendTests } from '../../../reporter/tests/send-tests.js';
import { FakeTransport } from '../../helpers/fake-transport.js';
import { reporterInputs } from '../../helpers/reporter-inputs.js';

/** Every test case sent in batches: keys, run identity, gzip once the server says it takes it. */

const context = readActionContext({
  GITHUB_ACTIONS: 'true',
  GITHUB_REPOSITORY: 'octo-org/web-app',
  GITHUB_RUN_ID: '77',
  GITHUB_RUN_ATTEMPT: '2',
  GITHUB_JOB: 'test',
  GITHUB_SHA: 'abc123',
  GITHUB_REF: 'refs/heads/main',
});

function withCases(n: number): Inputs {
  const inputs = reporterInputs({ 'junit-files': 'x.xml' });
  const cases = new CaseTable();
  for (let i = 0; i < n; i++) {
    cases.add({ suite: 's', name: `t${i}`, duration_ms: 1, status: i === 5 ? 'failed' : 'passed' });
  }
  inputs.tests = {
    counts: { total: n, passed: n - 1, failed: 1, errors: 0, skipped: 0, duration_ms: n },
    failures: [],
    files: ['x.xml'],
    cases,
  };
  return inputs;
}

const client = (transport: FakeTransport) =>
  new HttpStatsClient(transport, {
    baseUrl: 'https://stats.example.com',
    apiKey: 'key',
    timeoutSeconds: 5,
    retries: 0,
    log: () => undefined,
    userAgent: 'test',
  });

const ok = (gzip: boolean) => ({
  status: 200,
  headers: gzip ? { 'accept-encoding': 'gzip' } : {},
  body: '{"message":"Tests ingested successfully.","runId":"run-1","cases":1}',
});

type Body = {
  buildId: string;
  attempt?: number;
  commit?: string;
  branch?: string;
  eventId?: string;
  cases: unknown[];
};

describe('sendTests', () => {
  it('sends 12,001 cases in three batches, compressed once the server said it takes gzip', async () => {
    const transport = new FakeTransport().answer(ok(true), ok(true), ok(true));
    const result = await sendTests(
      client(transport),
      context,
      withCases(12_001),
      'exec1',
      'event-9',
    );
    expect(result?.acknowledgement).toEqual({
      id: 'run-1',
      message: '12001 test cases in 3 batch(es)',
      replayed: false,
    });
    const bodies = transport.sent.map((s) => s.body as Body);
    expect(bodies.map((b) => b.cases.length)).toEqual([5000, 5000, 2001]);
    expect(transport.sent.map((s) => s.headers['content-encoding'])).toEqual([
      undefined,
      'gzip',
      'gzip',
    ]);
    expect(
      transport.sent.every((s) => s.url === 'https://stats.example.com/stats/ingest-tests'),
    ).toBe(true);
    // One run: the same identity in every batch, each batch its own Idempotency-Key.
    expect(new Set(bodies.map((b) => b.buildId)).size).toBe(1);
    expect(bodies[0]).toMatchObject({
      attempt: 2,
      commit: 'abc123',
      branch: 'main',
      eventId: 'event-9',
    });
    const keys = transport.sent.map((s) => s.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(3);
    expect((bodies[1] as Body).cases[0]).toMatchObject({ name: 't5000' });
  });

  it('never compresses for a server that does not say it takes gzip', async () => {
    const transport = new FakeTransport().answer(ok(false), ok(false));
    await sendTests(client(transport), context, withCases(6000), 'exec1', undefined);
    expect(transport.sent.map((s) => s.headers['content-encoding'])).toEqual([
      undefined,
      undefined,
    ]);
    expect((transport.sent[0] as { body: Body }).body.eventId).toBeUndefined();
  });

  it('stops at the first batch refused, and says which', async () => {
    const transport = new FakeTransport().answer(ok(true), {
      status: 400,
      body: '{"error":"Invalid request body.","issues":[{"path":"cases.3.name","message":"too long"}]}',
    });
    const result = await sendTests(
      client(transport),
      context,
      withCases(12_001),
      'exec1',
      undefined,
    );
    expect(transport.sent.length).toBe(2);
    expect(result?.error?.message).toBe('HTTP 400: Invalid request body. (cases.3.name: too long)');
  });

  it('encodes the next batch while the server stores one, and sends it only after the answer', async () => {
    // The second batch's answer waits for the test; the others come at once.
    let answerSecond: (response: TransportResponse) => void = () => undefined;
    class HeldTransport extends FakeTransport {
      override post(
        url: string,
        body: string | Uint8Array,
        headers: Record<string, string>,
        timeoutMs: number,
      ): Exchange {
        const exchange = super.post(url, body, headers, timeoutMs);
        if (this.sent.length !== 2) return exchange;
        const response = new Promise<TransportResponse>((resolve) => {
          answerSecond = resolve;
        });
        return { ...exchange, response };
      }
    }
    const transport = new HeldTransport().answer(ok(true), ok(true), ok(true));
    const zlib = process.getBuiltinModule('node:zlib');
    const gzip = vi.spyOn(zlib, 'gzipSync');
    try {
      const sending = sendTests(client(transport), context, withCases(15_000), 'exec1', undefined);
      await vi.waitFor(() => expect(transport.sent.length).toBe(2));
      // While the second batch is unanswered: the third is compressed already, not sent.
      await vi.waitFor(() => expect(gzip).toHaveBeenCalledTimes(2));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(transport.sent.length).toBe(2);
      answerSecond(ok(true));
      const result = await sending;
      expect(result?.acknowledgement?.message).toBe('15000 test cases in 3 batch(es)');
      // Sent as encoded then: compressed once each, the third with its own cases and key.
      expect(gzip).toHaveBeenCalledTimes(2);
      const bodies = transport.sent.map((s) => s.body as Body);
      expect(bodies.map((b) => b.cases.length)).toEqual([5000, 5000, 5000]);
      expect((bodies[2] as Body).cases[0]).toMatchObject({ name: 't10000' });
      expect(transport.sent.map((s) => s.headers['content-encoding'])).toEqual([
        undefined,
        'gzip',
        'gzip',
      ]);
      expect(new Set(transport.sent.map((s) => s.headers['idempotency-key'])).size).toBe(3);
    } finally {
      gzip.mockRestore();
    }
  });

  it('sends nothing without test cases', async () => {
    const transport = new FakeTransport();
    expect(
      await sendTests(client(transport), context, withCases(0), 'exec1', undefined),
    ).toBeUndefined();
    expect(transport.sent).toEqual([]);
  });
});
