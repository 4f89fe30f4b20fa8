import type { ChannelKind } from '../../contract/channel-targets.js';
import type { ChannelRules } from '../../contract/channels.js';
import type { StoredChannel } from './storage.js';

/** A `channels` row as both backends select it (their SQL differs, the mapping does not). */
export interface ChannelRow {
  id: string;
  projectId: string;
  kind: string;
  name: string;
  hint: string;
  target: string;
  secret: string | null;
  rules: string;
  createdAt: string;
  updatedAt: string;
  threadId: string | null;
}

export const channelOf = (row: ChannelRow): StoredChannel => ({
  ...row,
  kind: row.kind as ChannelKind,
  rules: JSON.parse(row.rules) as ChannelRules,
});
