import * as z from 'zod/mini';
import { OwnError, SpecError } from './errors.js';
import { jsonObject, requiredText } from './fields.js';
import { isJsonObject } from './json.js';
import { Limits } from './limits.js';

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

export type Validated<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * E8 validation with the spec's ordered texts: the project id is judged first, then the payload;
 * anything else wrong with the body (unknown fields) is the generic text.
 */
export function validateIngestMetric(body: unknown): Validated<IngestMetricRequest> {
  const result = IngestMetricRequest.safeParse(body);
  if (result.success) return { ok: true, value: result.data };
  const first = result.error.issues[0];
  const field = first?.path[0];
  if (!isJsonObject(body) || field === 'projectId') {
    return { ok: false, error: SpecError.projectIdRequired };
  }
  if (field === 'payload') {
    return {
      ok: false,
      error: isJsonObject(body.payload)
        ? OwnError.metricPayloadTooLarge
        : SpecError.metricPayloadRequired,
    };
  }
  return { ok: false, error: SpecError.invalidBody };
}
