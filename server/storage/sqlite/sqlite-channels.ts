import {
  type ChannelRow,
  channelOf,
  RUN_FACTS,
  RUN_TESTS,
  type RunDocumentTable,
} from '../channel-rows.js';
import type { ChannelRepository, RunMessage } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const channelWrites = [
  'create',
  'update',
  'delete',
  'reserveSlot',
  'holdUntil',
  'rememberRunMessage',
  'storeRunFacts',
  'storeRunTests',
  'takeDigest',
] as const;

const COLUMNS = `id, project_id AS projectId, kind, name, hint, target, secret, rules,
                 created_at AS createdAt, updated_at AS updatedAt, thread_id AS threadId`;

/** A project's notification channels (issue 30), and each channel's sending slots. */
export function sqliteChannels(db: Db): Sync<ChannelRepository> {
  const count = db.prepare('SELECT count(*) FROM channels WHERE project_id = ?').pluck();
  const insert = db.prepare(
    `INSERT INTO channels
       (id, project_id, kind, name, hint, target, secret, rules, next_send_at, created_at, updated_at,
        next_digest_at, thread_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`,
  );
  const list = db.prepare(`SELECT ${COLUMNS} FROM channels WHERE project_id = ? ORDER BY seq`);
  const get = db.prepare(`SELECT ${COLUMNS} FROM channels WHERE id = ?`);
  const owned = `id = ? AND project_id IN (SELECT id FROM projects WHERE account_id = ?)`;
  const update = db.prepare(
    `UPDATE channels SET name = coalesce(?, name), hint = coalesce(?, hint),
            target = coalesce(?, target), secret = coalesce(?, secret), rules = coalesce(?, rules),
            next_digest_at = CASE WHEN ? THEN ? ELSE next_digest_at END,
            thread_id = CASE WHEN ? THEN ? ELSE thread_id END, updated_at = ?
      WHERE ${owned}`,
  );
  const remove = db.prepare(`DELETE FROM channels WHERE ${owned}`);
  const reserve = db
    .prepare(
      `UPDATE channels SET next_send_at = max(next_send_at, ?) + ?
        WHERE id = ? RETURNING next_send_at - ?`,
    )
    .pluck();
  const hold = db.prepare('UPDATE channels SET next_send_at = max(next_send_at, ?) WHERE id = ?');
  const due = db.prepare(
    `SELECT id, next_digest_at AS dueAt FROM channels
      WHERE next_digest_at IS NOT NULL AND next_digest_at <= ? ORDER BY next_digest_at LIMIT ?`,
  );
  const take = db.prepare(
    'UPDATE channels SET next_digest_at = ? WHERE id = ? AND next_digest_at = ?',
  );
  const counts = db.prepare(
    `SELECT branch, event_type AS eventType, status, count(*) AS count FROM events
      WHERE project_id = ? AND created_at >= ? AND created_at < ?
      GROUP BY branch, event_type, status`,
  );
  const alerts = db
    .prepare("SELECT count(*) FROM alerts WHERE project_id = ? AND status = 'active'")
    .pluck();
  const flakyNews = db
    .prepare('SELECT count(*) FROM flaky_news WHERE project_id = ? AND at >= ? AND at < ?')
    .pluck();
  const runMessage = db
    .prepare('SELECT message_id FROM channel_messages WHERE channel_id = ? AND run_key = ?')
    .pluck();
  const sentJob = db
    .prepare('SELECT sent_job FROM channel_messages WHERE channel_id = ? AND run_key = ?')
    .pluck();
  // A run remembered with no id of its own (''), or none yet, takes the candidate.
  const claimRunId = db
    .prepare(
      `INSERT INTO channel_messages (channel_id, run_key, message_id, created_at)
       SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM channels WHERE id = ?)
       ON CONFLICT (channel_id, run_key) DO UPDATE SET message_id = CASE
         WHEN substr(message_id, 1, 4) = 'msg_' THEN message_id ELSE excluded.message_id END
       RETURNING message_id`,
    )
    .pluck();
  // A channel deleted meanwhile has nothing to remember (its messages went with it).
  const remember = db.prepare(
    `INSERT INTO channel_messages
       (channel_id, run_key, message_id, created_at, run_ref, event, event_id, build_key,
        sent_job)
     SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM channels WHERE id = ?)
     ON CONFLICT (channel_id, run_key) DO UPDATE SET message_id = excluded.message_id,
       run_ref = coalesce(excluded.run_ref, run_ref), event = coalesce(excluded.event, event),
       event_id = CASE WHEN excluded.event IS NULL THEN event_id ELSE excluded.event_id END,
       build_key = CASE WHEN excluded.event IS NULL THEN build_key ELSE excluded.build_key END,
       sent_job = max(sent_job, excluded.sent_job)`,
  );
  const messagesOfBuild = db.prepare(
    `SELECT run_key AS runKey, message_id AS messageId, event FROM channel_messages
      WHERE channel_id = ? AND build_key = ? AND event IS NOT NULL ORDER BY run_key`,
  );
  const messagesOfEvent = db.prepare(
    `SELECT run_key AS runKey, message_id AS messageId, event FROM channel_messages
      WHERE channel_id = ? AND event_id = ? AND event IS NOT NULL ORDER BY run_key`,
  );
  const messagesOfRun = db.prepare(
    `SELECT run_key AS runKey, message_id AS messageId, event FROM channel_messages
      WHERE channel_id = ? AND run_ref = ? AND event IS NOT NULL ORDER BY run_key`,
  );
  const runTests = runDocuments(db, RUN_TESTS);
  const runFacts = runDocuments(db, RUN_FACTS);
  const forget = db.prepare('DELETE FROM channel_messages WHERE channel_id = ? AND created_at < ?');

  return {
    create(channel, max) {
      if ((count.get(channel.projectId) as number) >= max) return false;
      insert.run(
        channel.id,
        channel.projectId,
        channel.kind,
        channel.name,
        channel.hint,
        channel.target,
        channel.secret,
        JSON.stringify(channel.rules),
        channel.createdAt,
        channel.updatedAt,
        channel.nextDigestAt ?? null,
        channel.threadId ?? null,
      );
      return true;
    },
    list: (projectId) => (list.all(projectId) as ChannelRow[]).map(channelOf),
    get(id) {
      const row = get.get(id) as ChannelRow | undefined;
      return row && channelOf(row);
    },
    update(id, accountId, change, updatedAt) {
      const { changes } = update.run(
        change.name ?? null,
        change.hint ?? null,
        change.target ?? null,
        change.secret ?? null,
        change.rules === undefined ? null : JSON.stringify(change.rules.rules),
        change.rules === undefined ? 0 : 1,
        change.rules?.nextDigestAt ?? null,
        change.threadId === undefined ? 0 : 1,
        change.threadId ?? null,
        updatedAt,
        id,
        accountId,
      );
      if (changes === 0) return undefined;
      return channelOf(get.get(id) as ChannelRow);
    },
    delete: (id, accountId) => remove.run(id, accountId).changes > 0,
    reserveSlot: (id, now, spacingMs) =>
      reserve.get(now, spacingMs, id, spacingMs) as number | undefined,
    holdUntil(id, at) {
      hold.run(at, id);
    },
    dueDigests: (now, limit) => due.all(now, limit) as { id: string; dueAt: number }[],
    takeDigest: (id, dueAt, next) => take.run(next, id, dueAt).changes > 0,
    eventCounts: (projectId, from, to) =>
      counts.all(projectId, from, to) as {
        branch: string | null;
        eventType: string;
        status: string | null;
        count: number;
      }[],
    activeAlerts: (projectId) => alerts.get(projectId) as number,
    newFlaky: (projectId, from, to) => flakyNews.get(projectId, from, to) as number,
    runMessage: (channelId, runKey) => runMessage.get(channelId, runKey) as string | undefined,
    runSentJob: (channelId, runKey) => (sentJob.get(channelId, runKey) as number | undefined) ?? 0,
    claimRunId: (channelId, runKey, candidate, at) =>
      claimRunId.get(channelId, runKey, candidate, at, channelId) as string | undefined,
    rememberRunMessage(channelId, runKey, messageId, at, forgetBefore, sent, job = 0) {
      remember.run(
        channelId,
        runKey,
        messageId,
        at,
        sent?.runRef ?? null,
        sent?.event ?? null,
        sent?.eventId ?? null,
        sent?.buildKey ?? null,
        job,
        channelId,
      );
      forget.run(channelId, forgetBefore);
    },
    runMessages: (channelId, runRef) => messagesOfRun.all(channelId, runRef) as RunMessage[],
    eventMessages: (channelId, eventId) => messagesOfEvent.all(channelId, eventId) as RunMessage[],
    buildMessages: (channelId, buildKey) =>
      messagesOfBuild.all(channelId, buildKey) as RunMessage[],
    runTests: runTests.get,
    storeRunTests: runTests.store,
    runFacts: runFacts.get,
    storeRunFacts: runFacts.store,
  };
}

/** A table of run documents on SQLite (channel-rows.ts's RunDocumentTable). */
function runDocuments(db: Db, { table, ref, value }: RunDocumentTable) {
  const get = db
    .prepare(`SELECT ${value} FROM ${table} WHERE project_id = ? AND ${ref} = ?`)
    .pluck();
  const store = db.prepare(
    `INSERT INTO ${table} (project_id, ${ref}, ${value}, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (project_id, ${ref}) DO UPDATE SET ${value} = excluded.${value},
       updated_at = excluded.updated_at`,
  );
  const forget = db.prepare(`DELETE FROM ${table} WHERE project_id = ? AND updated_at < ?`);
  return {
    get: (projectId: string, at: string) => get.get(projectId, at) as string | undefined,
    store(projectId: string, at: string, document: string, now: number, forgetBefore: number) {
      store.run(projectId, at, document, now);
      forget.run(projectId, forgetBefore);
    },
  };
}
