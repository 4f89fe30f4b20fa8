import { Webhook } from 'standardwebhooks';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Paths } from '../../contract/paths.js';
import {
  buildReport,
  type ChannelStand,
  channelStand,
  DISCORD_URL,
  regressionThreshold,
  runContext,
} from '../helpers/channel-server.js';
import { FakeService, type RecordedRequest } from '../helpers/fake-service.js';
import { checkoutCase, type Outcome } from '../helpers/seed-tests.js';
import { startTestServer } from '../helpers/server.js';

/**
 * A run's one message (issue 30), where it is not a chat message: a generic webhook receives
 * every report of a run (its creation, a status change, a re-run, a regression judged on its
 * metrics, its test results) under the `webhook-id` of the run's first message, each signed
 * afresh over its own body and numbered by a growing `data.run.sequence`, so a receiver upserts
 * the run's record by the id and keeps the newest. The receiver here is a real HTTP server on
 * 127.0.0.1 that verifies every delivery with the Standard Webhooks reference library
 * (`standardwebhooks`), as a receiver would, and refuses (400) what does not verify. And test
 * results sent without the build's event (ingest-tests with no `eventId`) reach the message of
 * the run their build id and attempt name.
 */

async function metrics(stand: ChannelStand, runId: number, t: number, attempt = 1) {
  const res = await stand.server.call('POST', Paths.ingestMetrics, {
    key: stand.me.apiKey,
    body: {
      projectId: stand.me.projectId,
      payload: { t, directions: { t: 'lower' }, ...runContext(runId, attempt) },
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function tests(
  stand: ChannelStand,
  buildId: string,
  attempt: number,
  outcomes: [string, Outcome][],
) {
  const res = await stand.server.call('POST', Paths.ingestTests, {
    key: stand.me.apiKey,
    body: {
      projectId: stand.me.projectId,
      buildId,
      attempt,
      commit: `c-${buildId}`,
      branch: 'main',
      cases: outcomes.map(([name, outcome]) => checkoutCase(name, outcome)),
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

/** A webhook channel hearing of builds; its signing secret, shown once. */
async function webhookChannel(stand: ChannelStand): Promise<string> {
  const res = await stand.server.call('POST', Paths.createChannel, {
    key: stand.me.apiKey,
    body: {
      projectId: stand.me.projectId,
      kind: 'webhook',
      name: 'own receiver',
      url: stand.receiverUrl('/hook'),
      rules: { notify: ['builds'] },
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { signingSecret: string }).signingSecret;
}

interface Delivery {
  id: string;
  raw: string;
  body: {
    type: string;
    data: {
      status: string | null;
      run: { key: string; attempt: number | null; sequence: number; update: boolean } | null;
      facts?: { regressions: { key: string }[] } | null;
      runTests?: { total: number; failed: number } | null;
    };
  };
}

/**
 * A receiver as the Standard Webhooks documentation has one: every delivery verified with the
 * reference library (signature over id, timestamp and body; timestamp within its tolerance),
 * refused with 400 otherwise; the deliveries it accepted (2xx), in the order they arrived.
 */
function verifyingReceiver(stand: ChannelStand, secret: string) {
  const verifier = new Webhook(secret);
  const verified = new Set<RecordedRequest>();
  stand.receiver.script((request) => {
    try {
      verifier.verify(request.raw, request.headers as Record<string, string>);
      verified.add(request);
      return undefined;
    } catch {
      return { status: 400, body: { error: 'signature' } };
    }
  });
  return () =>
    stand.receiver.requests
      .filter((r) => (r.replied ?? 0) < 300 && verified.has(r))
      .map(
        (r): Delivery => ({
          id: String(r.headers['webhook-id']),
          raw: r.raw,
          body: r.body as Delivery['body'],
        }),
      );
}

/**
 * A receiver's store as docs/notifications.md has it: one record per `webhook-id`, the highest
 * sequence kept (on a tie, the later delivery: a retry is the same body).
 */
function upsert(deliveries: readonly Delivery[]) {
  const records = new Map<string, Delivery>();
  for (const delivery of deliveries) {
    const held = records.get(delivery.id);
    const sequence = (d: Delivery | undefined) => d?.body.data.run?.sequence ?? 0;
    if (held === undefined || sequence(delivery) >= sequence(held)) {
      records.set(delivery.id, delivery);
    }
  }
  return records;
}

describe("a generic webhook: one webhook-id for a run's life", () => {
  it('created, a status change, a re-run and a regression: one id, a growing sequence, each delivery signed afresh; another run another id', async () => {
    const stand = await channelStand('run-identity-webhook');
    await regressionThreshold(stand, 't');
    await metrics(stand, 101, 100);
    await metrics(stand, 102, 100);
    const secret = await webhookChannel(stand);
    const accepted = verifyingReceiver(stand, secret);
    let sent = 0;
    const next = async (count = 1) => {
      sent += count;
      await stand.receiver.waitFor(sent, (r) => (r.replied ?? 0) < 300, 10_000);
    };

    // Created: its first delivery fails (503) and is retried under the same id and sequence.
    stand.receiver.queue({ status: 503 });
    await buildReport(stand, 555, 'failure');
    await next();
    // A status change of the same attempt, then a re-run's result.
    await buildReport(stand, 555, 'success');
    await next();
    await buildReport(stand, 555, 'failure', 2);
    await next();
    // A regression judged on the re-run's metrics (t 150 against 100: beyond 10 %).
    await metrics(stand, 555, 150, 2);
    await next();
    // Another run.
    await buildReport(stand, 556, 'success');
    await next();
    await stand.settled('channel-message', 4);
    await stand.settled('channel-run-update', 1);

    // Every request the server sent verified; the 503 was a first attempt, retried as it was.
    const requests = stand.receiver.requests;
    expect(requests.map((r) => r.replied)).toEqual([503, 204, 204, 204, 204, 204]);
    const [failed, retried] = requests;
    expect(retried?.headers['webhook-id']).toBe(failed?.headers['webhook-id']);
    expect(retried?.raw).toBe(failed?.raw);

    const deliveries = accepted();
    expect(deliveries).toHaveLength(5);
    const run555 = deliveries.slice(0, 4);
    const first = run555[0]?.id as string;
    expect(first).toMatch(/^msg_/);
    expect(run555.map((d) => d.id)).toEqual([first, first, first, first]);
    expect(new Set(run555.map((d) => d.body.data.run?.key)).size).toBe(1);
    // Numbered in the order of the reports (each its job's place in the outbox).
    const sequences = run555.map((d) => d.body.data.run?.sequence as number);
    expect(
      sequences.every(
        (n, i) => Number.isInteger(n) && (i === 0 || n > (sequences[i - 1] as number)),
      ),
    ).toBe(true);
    expect(run555.map((d) => d.body.data.run?.update)).toEqual([false, true, true, true]);
    expect(run555.map((d) => [d.body.data.status, d.body.data.run?.attempt])).toEqual([
      ['failure', 1],
      ['success', 1],
      ['failure', 2],
      ['failure', 2],
    ]);
    expect(run555[3]?.body.data.facts?.regressions.map((r) => r.key)).toEqual(['t']);
    // Each delivery's signature is its own (over its own body and timestamp).
    const signatures = requests.slice(1, 5).map((r) => r.headers['webhook-signature']);
    expect(new Set(signatures).size).toBe(4);

    // The other run: its own id, its own sequence.
    const other = deliveries[4];
    expect(other?.id).toMatch(/^msg_/);
    expect(other?.id).not.toBe(first);
    expect(other?.body.data.run?.key).not.toBe(run555[0]?.body.data.run?.key);
    expect(other?.body.data.run?.update).toBe(false);

    // A receiver that upserts by id and keeps the highest sequence holds each run's latest
    // state, whatever order the deliveries arrived in.
    for (const order of [deliveries, [...deliveries].reverse()]) {
      const records = upsert(order);
      expect([...records.keys()].sort()).toEqual([first, other?.id].sort());
      expect(records.get(first)?.body.data.run?.sequence).toBe(sequences[3]);
      expect(records.get(first)?.body.data.facts?.regressions).toHaveLength(1);
    }
  });
});

describe('test results sent without the build event', () => {
  it("reach the message of the run their build id and attempt name (Discord edited, the webhook's run updated); others none", async () => {
    const stand = await channelStand('run-identity-tests');
    await stand.channel('discord', DISCORD_URL, { notify: ['builds'] });
    const secret = await webhookChannel(stand);
    const accepted = verifyingReceiver(stand, secret);

    await buildReport(stand, 901, 'failure');
    await stand.discord.service.waitFor(1);
    await stand.receiver.waitFor(1);

    // Another build's results, and another attempt's of this build: no message has them.
    await tests(stand, '902', 1, [['a', 'F']]);
    await tests(stand, '901', 2, [['a', 'F']]);
    await stand.settled('run-tests', 2);
    await stand.settled('channel-run-update', 0);
    expect(stand.discord.service.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
    expect(accepted()).toHaveLength(1);

    // This build's first attempt: 'a' passed, 'b' and 'c' failed, no eventId.
    await tests(stand, '901', 1, [
      ['a', 'P'],
      ['b', 'F'],
      ['c', 'F'],
    ]);
    await stand.discord.service.waitFor(1, (r) => r.method === 'PATCH');
    await stand.receiver.waitFor(2, (r) => (r.replied ?? 0) < 300);

    type Field = { name: string; value: string };
    const body = stand.discord.messages()[0]?.body as { embeds: { fields: Field[] }[] };
    const fields = body.embeds[0]?.fields.map((f) => [f.name, f.value]);
    expect(stand.discord.messages()).toHaveLength(1);
    expect(fields).toContainEqual(['Tests', '1 passed, 2 failed of 3 in 0 s']);
    expect(fields).toContainEqual(['Other failures (2)', '• checkout › b\n• checkout › c']);

    const [made, updated] = accepted();
    expect(updated?.id).toBe(made?.id);
    expect(updated?.body.data.run?.sequence).toBeGreaterThan(
      made?.body.data.run?.sequence as number,
    );
    expect(updated?.body.data.run?.update).toBe(true);
    expect(updated?.body.data.runTests).toMatchObject({ total: 3, failed: 2 });
    expect(made?.body.data.runTests ?? null).toBeNull();
  });
});

describe("the operator's allow-list", () => {
  it('a name listed with its port (WEBHOOK_ALLOWED_HOSTS=localhost:<port>) is delivered to, though it resolves to loopback', async () => {
    const receiver = new FakeService().fallback({ status: 204 });
    await receiver.start();
    onTestFinished(() => receiver.stop());
    const server = await startTestServer({
      WEBHOOK_ALLOWED_HOSTS: `localhost:${receiver.port}`,
      OUTBOX_RETRY_BASE_MS: '50',
      OUTBOUND_TIMEOUT_MS: '2000',
      SECRETS_KEY: 'run-identity-allow-key-0123456789abcdefghijklm',
    });
    onTestFinished(() => server.close());
    await server.app.ready();
    const me = await server.account();
    const res = await server.call('POST', Paths.createChannel, {
      key: me.apiKey,
      body: {
        projectId: me.projectId,
        kind: 'webhook',
        name: 'inside',
        url: `http://localhost:${receiver.port}/hook`,
        rules: { notify: ['builds'] },
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const sent = await server.call('POST', Paths.testChannel, {
      key: me.apiKey,
      body: { channelId: (res.json() as { id: string }).id },
    });
    expect(sent.json()).toEqual({ delivered: true, error: null });
    expect(receiver.requests.map((r) => [r.path, r.replied])).toEqual([['/hook', 204]]);
  });
});
