import {
  type ChannelRow,
  channelOf,
  RUN_FACTS,
  RUN_TESTS,
  type RunDocumentTable,
} from '../channel-rows.js';
import type { ChannelRepository, RunMessage } from '../storage.js';
import type { Sql } from './pg-database.js';

/**
 * A project's notification channels (issue 30). The sending slots are one row's counter, so
 * replicas sharing the database pace a channel together: each reservation is one atomic UPDATE.
 */
export function pgChannels(sql: Sql): ChannelRepository {
  const columns = sql`id, project_id AS "projectId", kind, name, hint, target, secret, rules,
                      created_at AS "createdAt", updated_at AS "updatedAt", thread_id AS "threadId"`;
  const owned = (id: string, accountId: string) =>
    sql`id = ${id} AND project_id IN (SELECT id FROM projects WHERE account_id = ${accountId})`;
  const runTests = runDocuments(sql, RUN_TESTS);
  const runFacts = runDocuments(sql, RUN_FACTS);
  return {
    async create(channel, max) {
      // The count and the insert in one statement; a project's channels are created by hand,
      // so two at the same instant past the limit is harmless.
      const rows = await sql`
        INSERT INTO channels
          (id, project_id, kind, name, hint, target, secret, rules, next_send_at, created_at, updated_at,
           next_digest_at, thread_id)
        SELECT ${channel.id}, ${channel.projectId}, ${channel.kind}, ${channel.name}, ${channel.hint},
               ${channel.target}, ${channel.secret}, ${JSON.stringify(channel.rules)}, 0,
               ${channel.createdAt}, ${channel.updatedAt}, ${channel.nextDigestAt ?? null},
               ${channel.threadId ?? null}
         WHERE (SELECT count(*) FROM channels WHERE project_id = ${channel.projectId}) < ${max}
        RETURNING id`;
      return rows.length > 0;
    },

    async list(projectId) {
      const rows = await sql<ChannelRow[]>`
        SELECT ${columns} FROM channels WHERE project_id = ${projectId} ORDER BY seq`;
      return rows.map(channelOf);
    },

    async get(id) {
      const [row] = await sql<ChannelRow[]>`SELECT ${columns} FROM channels WHERE id = ${id}`;
      return row && channelOf(row);
    },

    async update(id, accountId, change, updatedAt) {
      const [row] = await sql<ChannelRow[]>`
        UPDATE channels SET name = coalesce(${change.name ?? null}, name),
               hint = coalesce(${change.hint ?? null}, hint),
               target = coalesce(${change.target ?? null}, target),
               secret = coalesce(${change.secret ?? null}, secret),
               rules = coalesce(${change.rules === undefined ? null : JSON.stringify(change.rules.rules)}, rules),
               next_digest_at = CASE WHEN ${change.rules !== undefined} THEN ${change.rules?.nextDigestAt ?? null}::bigint
                                     ELSE next_digest_at END,
               thread_id = CASE WHEN ${change.threadId !== undefined} THEN ${change.threadId ?? null}::text
                                ELSE thread_id END,
               updated_at = ${updatedAt}
         WHERE ${owned(id, accountId)}
        RETURNING ${columns}`;
      return row && channelOf(row);
    },

    async delete(id, accountId) {
      const result = await sql`DELETE FROM channels WHERE ${owned(id, accountId)}`;
      return result.count > 0;
    },

    async reserveSlot(id, now, spacingMs) {
      const [row] = await sql<{ at: string }[]>`
        UPDATE channels SET next_send_at = GREATEST(next_send_at, ${now}) + ${spacingMs}
         WHERE id = ${id} RETURNING next_send_at - ${spacingMs} AS at`;
      return row && Number(row.at);
    },

    async holdUntil(id, at) {
      await sql`UPDATE channels SET next_send_at = GREATEST(next_send_at, ${at}) WHERE id = ${id}`;
    },

    async dueDigests(now, limit) {
      const rows = await sql<{ id: string; dueAt: string }[]>`
        SELECT id, next_digest_at AS "dueAt" FROM channels
         WHERE next_digest_at IS NOT NULL AND next_digest_at <= ${now}
         ORDER BY next_digest_at LIMIT ${limit}`;
      return rows.map((row) => ({ id: row.id, dueAt: Number(row.dueAt) }));
    },

    async takeDigest(id, dueAt, next) {
      const result = await sql`
        UPDATE channels SET next_digest_at = ${next}
         WHERE id = ${id} AND next_digest_at = ${dueAt}`;
      return result.count > 0;
    },

    async eventCounts(projectId, from, to) {
      const rows = await sql<
        { branch: string | null; eventType: string; status: string | null; count: string }[]
      >`
        SELECT branch, event_type AS "eventType", status, count(*) AS count FROM events
         WHERE project_id = ${projectId} AND created_at >= ${from} AND created_at < ${to}
         GROUP BY branch, event_type, status`;
      return rows.map((row) => ({ ...row, count: Number(row.count) }));
    },

    async activeAlerts(projectId) {
      const [row] = await sql<{ count: string }[]>`
        SELECT count(*) AS count FROM alerts WHERE project_id = ${projectId} AND status = 'active'`;
      return Number(row?.count ?? 0);
    },

    async newFlaky(projectId, from, to) {
      const [row] = await sql<{ count: string }[]>`
        SELECT count(*) AS count FROM flaky_news
         WHERE project_id = ${projectId} AND at >= ${from} AND at < ${to}`;
      return Number(row?.count ?? 0);
    },

    async runMessage(channelId, runKey) {
      const [row] = await sql<{ message_id: string }[]>`
        SELECT message_id FROM channel_messages
         WHERE channel_id = ${channelId} AND run_key = ${runKey}`;
      return row?.message_id;
    },

    async runSentJob(channelId, runKey) {
      const [row] = await sql<{ sent_job: string }[]>`
        SELECT sent_job FROM channel_messages
         WHERE channel_id = ${channelId} AND run_key = ${runKey}`;
      return Number(row?.sent_job ?? 0);
    },

    async claimRunId(channelId, runKey, candidate, at) {
      // A run remembered with no id of its own (''), or none yet, takes the candidate.
      const [row] = await sql<{ message_id: string }[]>`
        INSERT INTO channel_messages (channel_id, run_key, message_id, created_at)
        SELECT ${channelId}, ${runKey}, ${candidate}, ${at}
         WHERE EXISTS (SELECT 1 FROM channels WHERE id = ${channelId})
        ON CONFLICT (channel_id, run_key) DO UPDATE SET message_id = CASE
          WHEN substr(channel_messages.message_id, 1, 4) = 'msg_'
          THEN channel_messages.message_id ELSE excluded.message_id END
        RETURNING message_id`;
      return row?.message_id;
    },

    async rememberRunMessage(channelId, runKey, messageId, at, forgetBefore, sent, job = 0) {
      await sql`
        DELETE FROM channel_messages WHERE channel_id = ${channelId} AND created_at < ${forgetBefore}`;
      // A channel deleted meanwhile has nothing to remember (its messages went with it).
      await sql`
        INSERT INTO channel_messages
          (channel_id, run_key, message_id, created_at, run_ref, event, event_id, build_key,
           sent_job)
        SELECT ${channelId}, ${runKey}, ${messageId}, ${at}, ${sent?.runRef ?? null},
               ${sent?.event ?? null}, ${sent?.eventId ?? null}, ${sent?.buildKey ?? null},
               ${job}
         WHERE EXISTS (SELECT 1 FROM channels WHERE id = ${channelId})
        ON CONFLICT (channel_id, run_key) DO UPDATE SET message_id = excluded.message_id,
          run_ref = coalesce(excluded.run_ref, channel_messages.run_ref),
          event = coalesce(excluded.event, channel_messages.event),
          event_id = CASE WHEN excluded.event IS NULL THEN channel_messages.event_id
                          ELSE excluded.event_id END,
          build_key = CASE WHEN excluded.event IS NULL THEN channel_messages.build_key
                           ELSE excluded.build_key END,
          sent_job = GREATEST(channel_messages.sent_job, excluded.sent_job)`;
    },

    async buildMessages(channelId, buildKey) {
      return sql<RunMessage[]>`
        SELECT run_key AS "runKey", message_id AS "messageId", event FROM channel_messages
         WHERE channel_id = ${channelId} AND build_key = ${buildKey} AND event IS NOT NULL
         ORDER BY run_key`;
    },

    async eventMessages(channelId, eventId) {
      return sql<RunMessage[]>`
        SELECT run_key AS "runKey", message_id AS "messageId", event FROM channel_messages
         WHERE channel_id = ${channelId} AND event_id = ${eventId} AND event IS NOT NULL
         ORDER BY run_key`;
    },

    runTests: runTests.get,
    storeRunTests: runTests.store,

    async runMessages(channelId, runRef) {
      return sql<RunMessage[]>`
        SELECT run_key AS "runKey", message_id AS "messageId", event FROM channel_messages
         WHERE channel_id = ${channelId} AND run_ref = ${runRef} AND event IS NOT NULL
         ORDER BY run_key`;
    },

    runFacts: runFacts.get,
    storeRunFacts: runFacts.store,
  };
}

/** A table of run documents on PostgreSQL (channel-rows.ts's RunDocumentTable). */
function runDocuments(sql: Sql, names: RunDocumentTable) {
  const [table, ref, value] = [sql(names.table), sql(names.ref), sql(names.value)];
  return {
    async get(projectId: string, at: string) {
      const [row] = await sql<{ value: string }[]>`
        SELECT ${value} AS value FROM ${table} WHERE project_id = ${projectId} AND ${ref} = ${at}`;
      return row?.value;
    },
    async store(
      projectId: string,
      at: string,
      document: string,
      now: number,
      forgetBefore: number,
    ) {
      await sql`
        INSERT INTO ${table} (project_id, ${ref}, ${value}, updated_at)
        VALUES (${projectId}, ${at}, ${document}, ${now})
        ON CONFLICT (project_id, ${ref}) DO UPDATE SET ${value} = excluded.${value},
          updated_at = excluded.updated_at`;
      await sql`DELETE FROM ${table} WHERE project_id = ${projectId} AND updated_at < ${forgetBefore}`;
    },
  };
}
