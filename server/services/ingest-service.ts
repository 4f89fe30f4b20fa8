import { EVENT_CREATED, type IngestEventRequest } from '../../contract/events.js';
import { type IngestMetricRequest, METRIC_INGESTED } from '../../contract/metrics.js';
import { payloadJson } from '../../contract/payload.js';
import { fieldText } from '../../contract/verdicts.js';
import { InvalidField } from '../domain/domain-errors.js';
import { newRecordId } from '../domain/ids.js';
import { branchOf, seriesOf, statusOf } from '../domain/record-facts.js';
import { declarationsOf } from '../domain/verdicts/record-context.js';
import { chatNotification } from '../outbox/outbox-jobs.js';
import type { SecretBox } from '../outbox/secret-box.js';
import type { KeyOwner, Storage } from '../storage/storage.js';
import type { ChannelDispatch } from './channels/channel-dispatch.js';
import type { Answer, Idempotency } from './idempotency-service.js';
import type { ProjectAccess } from './project-access.js';

export interface IngestResponse {
  message: string;
  id: string;
}

/**
 * E7 and E8: check the project belongs to the caller, store, once per Idempotency-Key. The
 * answer is given only once the record is durable.
 */
export function ingestService(
  storage: Storage,
  access: ProjectAccess,
  idempotency: Idempotency,
  secrets: SecretBox,
  channels: ChannelDispatch,
  /** A metric record was stored: the judging worker looks at it (off this request). */
  metricStored: () => void = () => undefined,
) {
  return {
    async event(
      caller: KeyOwner,
      event: IngestEventRequest,
      key: string | undefined,
    ): Promise<Answer<IngestResponse>> {
      const project = await access.assertOwn(caller, event.projectId);
      const response = { message: EVENT_CREATED, id: newRecordId() };
      const createdAt = Date.now();
      const row = {
        id: response.id,
        projectId: event.projectId,
        eventType: event.eventType,
        description: event.description ?? null,
        payload: event.payload === undefined ? null : payloadJson(event.payload),
        color: event.color ?? null,
        createdAt,
        branch: branchOf(event.payload),
        status: statusOf(event.payload),
      };
      const record = {
        kind: 'event' as const,
        row,
        // Queued in the same transaction as the event: it is sent exactly when the event exists.
        notification: chatNotification(event, project.name, createdAt, secrets),
        channelJobs: await channels(row, project.name, event.payload),
      };
      return idempotency.once(
        caller.accountId,
        key,
        { endpoint: 'E7', body: event },
        response,
        (claim) => storage.records.append(record, claim),
      );
    },

    async metric(
      caller: KeyOwner,
      metric: IngestMetricRequest,
      key: string | undefined,
    ): Promise<Answer<IngestResponse>> {
      await access.assertOwn(caller, metric.projectId);
      // Units and directions are judged later, but refused now: a 2xx means stored as sent.
      const declared = declarationsOf(metric.payload);
      if (!declared.ok) throw new InvalidField(declared.field, fieldText(declared.field));
      const response = { message: METRIC_INGESTED, id: newRecordId() };
      const record = {
        kind: 'metric' as const,
        row: {
          id: response.id,
          projectId: metric.projectId,
          payload: payloadJson(metric.payload),
          createdAt: Date.now(),
          branch: branchOf(metric.payload),
        },
        series: seriesOf(metric.payload),
        parsed: metric.payload,
      };
      const answer = await idempotency.once(
        caller.accountId,
        key,
        { endpoint: 'E8', body: metric },
        response,
        (claim) => storage.records.append(record, claim),
      );
      metricStored();
      return answer;
    },
  };
}

export type IngestService = ReturnType<typeof ingestService>;
