import { v7 as uuidv7 } from 'uuid';
import { parseDiscordWebhookUrl } from '../contract/discord-webhook.js';
import { SpecError } from '../contract/errors.js';
import { EVENT_CREATED, IngestEventRequest, type IngestEventResponse } from '../contract/events.js';
import {
  type IngestMetricResponse,
  METRIC_INGESTED,
  validateIngestMetric,
} from '../contract/metrics.js';
import type { Db } from '../db/database.js';
import { nowIso } from '../domain/time.js';
import { HttpError } from '../errors.js';
import type { Stores } from '../store/index.js';
import type { ProjectAccess } from './project-access.js';

export interface IngestDeps {
  db: Db;
  stores: Stores;
  access: ProjectAccess;
}

/** E7 and E8: validate, check the project belongs to the caller, store. */
export function ingestService({ db, stores, access }: IngestDeps) {
  const storeEvent = db.transaction(
    (event: IngestEventRequest, projectName: string, id: string, createdAt: string) => {
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
            eventCreatedAt: createdAt,
          },
          id,
        );
      }
    },
  );

  return {
    event(accountId: string, body: unknown): IngestEventResponse {
      const parsed = IngestEventRequest.safeParse(body);
      if (!parsed.success) throw new HttpError(400, SpecError.invalidBody);
      const project = access.assertOwn(accountId, parsed.data.projectId);
      const id = uuidv7();
      storeEvent(parsed.data, project.name, id, nowIso());
      return { message: EVENT_CREATED, id };
    },

    metric(accountId: string, body: unknown): IngestMetricResponse {
      const parsed = validateIngestMetric(body);
      if (!parsed.ok) throw new HttpError(400, parsed.error);
      access.assertOwn(accountId, parsed.value.projectId);
      const id = uuidv7();
      stores.records.insertMetric({
        id,
        projectId: parsed.value.projectId,
        payload: JSON.stringify(parsed.value.payload),
        createdAt: nowIso(),
      });
      return { message: METRIC_INGESTED, id };
    },
  };
}

export type IngestService = ReturnType<typeof ingestService>;
