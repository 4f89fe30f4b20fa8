import { parseDiscordWebhookUrl } from '../contract/discord-webhook.js';
import { SpecError } from '../contract/errors.js';
import { EVENT_CREATED, IngestEventRequest, type IngestEventResponse } from '../contract/events.js';
import {
  type IngestMetricResponse,
  METRIC_INGESTED,
  validateIngestMetric,
} from '../contract/metrics.js';
import type { Commits } from '../db/commits.js';
import { newRecordId } from '../domain/ids.js';
import { HttpError } from '../errors.js';
import type { Stores } from '../store/index.js';
import type { Answer, Idempotency } from './idempotency.js';
import type { ProjectAccess } from './project-access.js';

export interface IngestDeps {
  stores: Stores;
  access: ProjectAccess;
  commits: Commits;
  idempotency: Idempotency;
}

/**
 * E7 and E8: validate, check the project belongs to the caller, store through group commit,
 * once per Idempotency-Key. The answer is given only once the record is durable.
 */
export function ingestService({ stores, access, commits, idempotency }: IngestDeps) {
  /** Runs inside the group transaction: the event and its notification job commit together. */
  function storeEvent(
    event: IngestEventRequest,
    projectName: string,
    id: string,
    createdAt: number,
  ) {
    stores.records.insertEvent({
      id,
      projectId: event.projectId,
      eventType: event.eventType,
      description: event.description ?? null,
      payload: event.payload === undefined ? null : JSON.stringify(event.payload),
      color: event.color ?? null,
      createdAt,
    });
    const webhook = event.chatWebhook && parseDiscordWebhookUrl(event.chatWebhook.url);
    if (event.chatWebhook && webhook) {
      stores.outbox.enqueue(
        {
          kind: 'chat-notification',
          webhook,
          title: event.chatWebhook.title,
          description: event.chatWebhook.description ?? event.description ?? null,
          color: event.chatWebhook.color ?? event.color ?? null,
          projectId: event.projectId,
          projectName,
          eventType: event.eventType,
          eventCreatedAt: new Date(createdAt).toISOString(),
        },
        id,
      );
    }
  }

  return {
    event(
      accountId: string,
      body: unknown,
      key: string | undefined,
    ): Promise<Answer<IngestEventResponse>> {
      const parsed = IngestEventRequest.safeParse(body);
      if (!parsed.success) throw new HttpError(400, SpecError.invalidBody);
      const project = access.assertOwn(accountId, parsed.data.projectId);
      return idempotency.once(accountId, key, { endpoint: 'E7', body }, async (remember) => {
        const response = { message: EVENT_CREATED, id: newRecordId() };
        const createdAt = Date.now();
        await commits.run(() => {
          remember(response);
          storeEvent(parsed.data, project.name, response.id, createdAt);
        });
        return response;
      });
    },

    metric(
      accountId: string,
      body: unknown,
      key: string | undefined,
    ): Promise<Answer<IngestMetricResponse>> {
      const parsed = validateIngestMetric(body);
      if (!parsed.ok) throw new HttpError(400, parsed.error);
      access.assertOwn(accountId, parsed.value.projectId);
      return idempotency.once(accountId, key, { endpoint: 'E8', body }, async (remember) => {
        const response = { message: METRIC_INGESTED, id: newRecordId() };
        const row = {
          id: response.id,
          projectId: parsed.value.projectId,
          payload: JSON.stringify(parsed.value.payload),
          createdAt: Date.now(),
        };
        await commits.run(() => {
          remember(response);
          stores.records.insertMetric(row);
        });
        return response;
      });
    },
  };
}

export type IngestService = ReturnType<typeof ingestService>;
