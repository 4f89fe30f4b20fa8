import type { ChannelKind } from '../../contract/channel-targets.js';
import type { EventSummary } from '../domain/channels/event-summary.js';
import { canEdit } from '../domain/channels/run-facts.js';
import { sameTests } from '../domain/channels/run-tests.js';

/**
 * Whether a run's message, last sent as `sent`, is worth sending again as `now` (with the facts
 * and test results judged since). Where it is edited in place (Discord, a Slack app), or to a
 * generic receiver that keeps one record per run, for anything new; where it would be a second
 * message in a chat (Slack's incoming webhooks, Teams), only for a new regression or a new
 * failing test: a duration alone, or a known flaky test's failure, is not worth another.
 */
export function worthSending(kind: ChannelKind, sent: EventSummary, now: EventSummary): boolean {
  const factsChanged = JSON.stringify(sent.facts ?? null) !== JSON.stringify(now.facts ?? null);
  if (!factsChanged && sameTests(sent.runTests, now.runTests)) return false;
  if (canEdit(kind) || kind === 'webhook') return true;
  const grew = (count: (event: EventSummary) => number) => count(now) > count(sent);
  return (
    grew((event) => event.facts?.regressionCount ?? 0) ||
    grew((event) => event.runTests?.newFailures.count ?? 0)
  );
}
