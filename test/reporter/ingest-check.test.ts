import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IngestEventRequest, IngestEventResponse } from '../../contract/events.js';
import {
  quickIngestAnswer,
  quickIngestEvent,
  quickIngestMetric,
} from '../../contract/ingest-check.js';
import { Limits } from '../../contract/limits.js';
import { IngestMetricRequest, IngestMetricResponse } from '../../contract/metrics.js';
import { readActionContext } from '../../reporter/report-context.js';
import { planRequests } from '../../reporter/requests.js';
import { reporterInputs } from '../helpers/reporter-inputs.js';

/**
 * The reporters' zod-free quick check may only say yes where the contract's schema says yes and
 * parses the body to the same JSON; the schema decides everything else. Bodies are generated
 * around every limit, with wrong types, unknown and undefined fields and fields out of order.
 */

const WEBHOOK = 'https://discord.com/api/webhooks/123456789012345678/token_abc';

/** Mostly a valid value, sometimes one of the edge cases (which may or may not be valid). */
const mostly = <T>(valid: fc.Arbitrary<T>, edge: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: edge, weight: 1 });

/** Strings of lengths around `max` (and empty), sometimes not ASCII, sometimes not strings. */
const textAround = (max: number) =>
  mostly(
    fc.oneof(
      fc.string({ minLength: 1, maxLength: 8 }),
      fc.constantFrom(1, max - 1, max).map((n) => 'é'.repeat(n)),
    ),
    fc.constantFrom('', 'x'.repeat(max + 1), 'é'.repeat(max + 1), 12, null, true, ['a'], { a: 1 }),
  );

const color = mostly(
  fc.integer({ min: 0, max: Limits.maxColor }),
  fc.constantFrom(-0, Limits.maxColor + 1, -1, 0.5, 2 ** 53, Number.NaN, '#ffffff', '1', null),
);

/** An object nested `depth` levels (the object itself is level 1). */
const nested = (depth: number) => {
  let value: Record<string, unknown> = {};
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
};

const payload = fc.oneof(
  {
    arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), {
      maxKeys: 5,
    }),
    weight: 4,
  },
  fc
    .constantFrom(Limits.payloadDepth - 1, Limits.payloadDepth, Limits.payloadDepth + 1)
    .map(nested),
  fc
    .constantFrom(-20, -1, 0, 1, 20)
    .map((extra) => ({ big: 'x'.repeat(Limits.payloadBytes - 10 + extra) })),
  fc.constant({ big: 'é'.repeat(Limits.payloadBytes / 2 - 4) }),
  fc.constantFrom(null, [], [1], 'x', 1),
);

const webhookUrl = fc.oneof(
  {
    arbitrary: fc.constantFrom(WEBHOOK, `${WEBHOOK}?wait=true`, `${WEBHOOK}?thread_id=42`),
    weight: 4,
  },
  fc.constantFrom(
    'https://discord.com:8443/api/webhooks/1/t',
    'http://discord.com/api/webhooks/1/t',
    'https://example.com/api/webhooks/1/t',
    `${WEBHOOK}#x`,
    `${WEBHOOK}?wait=maybe`,
    'not a url',
    '',
  ),
  fc.constantFrom(1, 2, 3).map((n) => `${WEBHOOK}?wait=true${'&wait=true'.repeat(n * 300)}`),
  fc.constant(`https://discord.com/api/webhooks/1/${'t'.repeat(Limits.webhookUrlLength)}`),
);

/** A record of optional fields, sometimes with an unknown or undefined field, sometimes reordered. */
function body(fields: Record<string, fc.Arbitrary<unknown>>, required: string[]) {
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: required }),
      fc.oneof(
        { arbitrary: fc.constant('none'), weight: 6 },
        fc.constantFrom('unknown', 'undefined', 'missing', 'reversed', 'discordWebhook'),
      ),
    )
    .map(([record, twist]) => {
      const value: Record<string, unknown> = { ...record };
      if (twist === 'unknown') value.extra = 1;
      const first = Object.keys(fields)[0] as string;
      if (twist === 'undefined') value[first] = undefined;
      if (twist === 'missing') delete value[first];
      if (twist === 'discordWebhook') value.discordWebhook = { url: WEBHOOK, title: 't' };
      return twist === 'reversed' ? Object.fromEntries(Object.entries(value).reverse()) : value;
    });
}

const chatWebhook = fc.oneof(
  body(
    {
      url: webhookUrl,
      title: textAround(Limits.webhookTitleLength),
      description: textAround(Limits.webhookDescriptionLength),
      color,
    },
    ['url', 'title'],
  ),
  fc.constantFrom(null, 'x', []),
);

const eventBody = fc.oneof(
  body(
    {
      projectId: textAround(Limits.projectIdLength),
      eventType: textAround(Limits.eventTypeLength),
      description: textAround(Limits.descriptionLength),
      payload,
      color,
      chatWebhook,
    },
    ['projectId', 'eventType'],
  ),
  fc.constantFrom(null, [], 'x'),
);

const metricBody = fc.oneof(
  body({ projectId: textAround(Limits.projectIdLength), payload }, ['projectId', 'payload']),
  fc.constantFrom(null, [], 'x'),
);

const json = (value: unknown) => JSON.stringify(value);

describe('the quick check of E7 and E8 bodies', () => {
  it('says yes to an event only where IngestEventRequest accepts it unchanged', () => {
    let yes = 0;
    fc.assert(
      fc.property(eventBody, (candidate) => {
        if (!quickIngestEvent(candidate)) return;
        yes++;
        const parsed = IngestEventRequest.safeParse(candidate);
        expect(parsed.success).toBe(true);
        expect(json(parsed.data)).toBe(json(candidate));
      }),
      { seed: 13, numRuns: 3000 },
    );
    // The generator reaches the accepting side too, so the property is not vacuous.
    expect(yes).toBeGreaterThan(20);
  });

  it('says yes to a metric record only where IngestMetricRequest accepts it unchanged', () => {
    let yes = 0;
    fc.assert(
      fc.property(metricBody, (candidate) => {
        if (!quickIngestMetric(candidate)) return;
        yes++;
        const parsed = IngestMetricRequest.safeParse(candidate);
        expect(parsed.success).toBe(true);
        expect(json(parsed.data)).toBe(json(candidate));
      }),
      { seed: 13, numRuns: 2000 },
    );
    expect(yes).toBeGreaterThan(20);
  });

  // The server's use (http/api/body-validator.ts): any order of fields, the parsed body itself
  // handed on, so it must hold the same fields and values as the schema's, none more, none less.
  it.each([
    ['an event', eventBody, quickIngestEvent, IngestEventRequest, 3000],
    ['a metric record', metricBody, quickIngestMetric, IngestMetricRequest, 2000],
  ] as const)(
    'says yes to %s in any order only where the schema accepts it as sent',
    (_, bodies, quick, schema, numRuns) => {
      let yes = 0;
      let reordered = 0;
      fc.assert(
        fc.property(bodies as fc.Arbitrary<unknown>, (candidate) => {
          if (!quick(candidate, true)) return;
          yes++;
          if (!quick(candidate)) reordered++;
          const parsed = schema.safeParse(candidate);
          expect(parsed.success).toBe(true);
          expect(candidate).toStrictEqual(parsed.data);
        }),
        { seed: 13, numRuns },
      );
      expect(yes).toBeGreaterThan(20);
      // Bodies only the order-free check accepts are reached, so that side is tested too.
      expect(reordered).toBeGreaterThan(5);
    },
  );

  it('reads an answer exactly as the response schemas do', () => {
    const answer = fc.oneof(
      fc.record(
        {
          message: fc.oneof(fc.string(), fc.constantFrom(1, null)),
          id: fc.oneof(fc.uuid(), fc.constantFrom(1, null)),
          extra: fc.jsonValue({ maxDepth: 1 }),
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue({ maxDepth: 2 }),
    );
    fc.assert(
      fc.property(answer, (candidate) => {
        const quick = quickIngestAnswer(candidate);
        for (const schema of [IngestEventResponse, IngestMetricResponse]) {
          const parsed = schema.safeParse(candidate);
          expect(quick).toEqual(parsed.success ? parsed.data : undefined);
        }
      }),
      { seed: 13, numRuns: 2000 },
    );
  });

  it('accepts the bodies the reporters build, so a step does not load zod', async () => {
    const context = readActionContext({ GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '1' });
    const planned = await planRequests(
      reporterInputs({
        'event-type': 'deploy',
        description: 'v1.2.3',
        status: 'success',
        payload: '{"version":"1.2.3"}',
        metrics: '{"duration_ms":1234}',
        'chat-webhook-url': WEBHOOK,
        'chat-description': 'done',
        'chat-color': '#00ff00',
      }),
      context,
    );
    const [event, metric] = planned;
    expect(quickIngestEvent(event?.body)).toBe(true);
    expect(quickIngestMetric(metric?.body)).toBe(true);
  });
});
