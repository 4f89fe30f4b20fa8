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

/**
 * A JSON document kept per run for its channel messages: a project's row per reference, replaced
 * when stored again, the project's older ones forgotten then. Both backends write them with the
 * same statements, on these columns.
 */
export interface RunDocumentTable {
  table: string;
  /** The run's reference. */
  ref: string;
  /** The document (JSON). */
  value: string;
}

/** What the test results sent for an event say (channels/run-tests.ts), by event. */
export const RUN_TESTS: RunDocumentTable = { table: 'run_tests', ref: 'event_id', value: 'tests' };
/** What judging found on a run's metric records (channels/run-facts.ts), by run. */
export const RUN_FACTS: RunDocumentTable = { table: 'run_facts', ref: 'run_ref', value: 'facts' };
