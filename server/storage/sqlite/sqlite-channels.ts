import { type ChannelRow, channelOf } from '../channel-rows.js';
import type { ChannelRepository } from '../storage.js';
import type { Db } from './sqlite-database.js';
import type { Sync } from './sync.js';

export const channelWrites = [
  'create',
  'update',
  'delete',
  'reserveSlot',
  'holdUntil',
  'rememberRunMessage',
] as const;

const COLUMNS = `id, project_id AS projectId, kind, name, hint, target, secret, rules,
                 created_at AS createdAt, updated_at AS updatedAt`;

/** A project's notification channels (issue 30), and each channel's sending slots. */
export function sqliteChannels(db: Db): Sync<ChannelRepository> {
  const count = db.prepare('SELECT count(*) FROM channels WHERE project_id = ?').pluck();
  const insert = db.prepare(
    `INSERT INTO channels
       (id, project_id, kind, name, hint, target, secret, rules, next_send_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
  );
  const list = db.prepare(`SELECT ${COLUMNS} FROM channels WHERE project_id = ? ORDER BY seq`);
  const get = db.prepare(`SELECT ${COLUMNS} FROM channels WHERE id = ?`);
  const owned = `id = ? AND project_id IN (SELECT id FROM projects WHERE account_id = ?)`;
  const update = db.prepare(
    `UPDATE channels SET name = coalesce(?, name), hint = coalesce(?, hint),
            target = coalesce(?, target), rules = coalesce(?, rules), updated_at = ?
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
  const runMessage = db
    .prepare('SELECT message_id FROM channel_messages WHERE channel_id = ? AND run_key = ?')
    .pluck();
  // A channel deleted meanwhile has nothing to remember (its messages went with it).
  const remember = db.prepare(
    `INSERT INTO channel_messages (channel_id, run_key, message_id, created_at)
     SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM channels WHERE id = ?)
     ON CONFLICT (channel_id, run_key) DO UPDATE SET message_id = excluded.message_id`,
  );
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
        change.rules === undefined ? null : JSON.stringify(change.rules),
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
    runMessage: (channelId, runKey) => runMessage.get(channelId, runKey) as string | undefined,
    rememberRunMessage(channelId, runKey, messageId, at, forgetBefore) {
      remember.run(channelId, runKey, messageId, at, channelId);
      forget.run(channelId, forgetBefore);
    },
  };
}
