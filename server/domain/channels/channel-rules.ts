import picomatch from 'picomatch';
import type { ChannelRules, NotifyChoice } from '../../../contract/channels.js';
import { type EventSummary, RELEASE_TYPES } from './event-summary.js';

/**
 * Whether a channel's rules want an event: its type among `eventTypes` (any when empty), its
 * branch matching one of `branches` (globs; any when empty, and then events without a branch
 * too), and one of the `notify` choices holding:
 * - `releases`: a release or deploy event;
 * - `builds`: any other event;
 * - `failures`: one whose status is `failure`;
 * - `changes`: one whose status is success or failure and differs from the previous event's of
 *   its type on its branch (broken, fixed); the first one has nothing to differ from;
 * - `alerts`: a regression alert (and only `alerts` wants one);
 * - `flaky`: tests that became flaky (and only `flaky` wants them).
 */
export function wants(rules: ChannelRules, event: EventSummary): boolean {
  // A digest is what the channel asked for as long as it still asks for one.
  if (event.digest) return rules.digest !== undefined;
  // An alert or a flaky test is no event: `eventTypes` does not apply to it, its branch rules do.
  if (
    !event.alert &&
    !event.flaky &&
    rules.eventTypes?.length &&
    !rules.eventTypes.includes(event.eventType)
  ) {
    return false;
  }
  if (!branchWanted(rules, event.branch)) return false;
  return rules.notify.some((choice) => holds(choice, event));
}

/** Whether the rules' `branches` globs let this branch through (any, when there are none). */
export function branchWanted(rules: ChannelRules, branch: string | null): boolean {
  if (!rules.branches?.length) return true;
  if (branch === null) return false;
  return picomatch(rules.branches, { dot: true, nonegate: true, noextglob: true })(branch);
}

function holds(choice: NotifyChoice, event: EventSummary): boolean {
  if (event.alert) return choice === 'alerts';
  if (event.flaky) return choice === 'flaky';
  const release = RELEASE_TYPES.has(event.eventType);
  switch (choice) {
    case 'releases':
      return release;
    case 'builds':
      return !release;
    case 'failures':
      return !release && event.status === 'failure';
    case 'alerts':
    case 'flaky':
      return false;
    case 'changes':
      return (
        !release &&
        isOutcome(event.status) &&
        isOutcome(event.previousStatus) &&
        event.status !== event.previousStatus
      );
  }
}

const isOutcome = (status: string | null) => status === 'success' || status === 'failure';

/** Whether judging needs the previous event's status (a read at ingest). */
export const needsPreviousStatus = (rules: ChannelRules): boolean =>
  rules.notify.includes('changes');

/** Whether this event's message mentions the channel's `mention`: failures only. */
export const mentions = (rules: ChannelRules, event: EventSummary): boolean =>
  Boolean(rules.mention) && event.status === 'failure';

/** The rules that send build messages (releases, alerts, flaky tests and digests tell no run). */
const BUILD_RULES: ReadonlySet<NotifyChoice> = new Set(['builds', 'failures', 'changes']);

/** Whether the channel may have a build's message, which later facts of its run update. */
export const hearsOfBuilds = (channel: { rules: ChannelRules }): boolean =>
  channel.rules.notify.some((choice) => BUILD_RULES.has(choice));
