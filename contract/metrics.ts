import * as z from 'zod/mini';
import { OwnError, SpecError } from './error-texts.js';
import { concerns, jsonObject, pickErrorText, requiredText } from './fields.js';
import { isJsonObject, jsonDepthWithin } from './json.js';
import { Limits } from './limits.js';
import { PayloadProblem, payloadTextProblem } from './payload.js';

/** E8 POST /stats/ingest-metrics request body (spec 2.5). */
export const IngestMetricRequest = z.strictObject({
  projectId: requiredText(Limits.projectIdLength),
  payload: jsonObject,
});
export type IngestMetricRequest = z.infer<typeof IngestMetricRequest>;

/** E8 200 response body. */
export const IngestMetricResponse = z.object({ message: z.string(), id: z.string() });
export type IngestMetricResponse = z.infer<typeof IngestMetricResponse>;

export const METRIC_INGESTED = 'Metric ingested successfully.';

/**
 * E8's 400 texts, in the spec's order: the project id is judged first, then the payload; anything
 * else wrong with the body (unknown fields) gets the generic text.
 */
export const ingestMetricErrorText = pickErrorText(
  [
    SpecError.projectIdRequired,
    SpecError.metricPayloadRequired,
    OwnError.metricPayloadTooLarge,
    OwnError.metricPayloadNul,
    SpecError.invalidBody,
  ],
  (paths, body) => {
    if (!isJsonObject(body) || concerns(paths, 'projectId')) return SpecError.projectIdRequired;
    if (concerns(paths, 'payload')) {
      const { payload } = body;
      // An object of the right depth: what its check found is its size or a NUL.
      if (isJsonObject(payload) && jsonDepthWithin(payload, Limits.payloadDepth)) {
        const problem = payloadTextProblem(payload);
        if (problem?.message === PayloadProblem.tooLarge) return OwnError.metricPayloadTooLarge;
        if (problem !== undefined) return OwnError.metricPayloadNul;
      }
      return SpecError.metricPayloadRequired;
    }
    return SpecError.invalidBody;
  },
);
