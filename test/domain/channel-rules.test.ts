import { describe, expect, it } from 'vitest';
import type { ChannelRules } from '../../contract/channels.js';
import { mentions, wants } from '../../server/domain/channels/channel-rules.js';
import type { EventSummary } from '../../server/domain/channels/event-summary.js';
import { sampleEvent } from '../../server/domain/channels/messages/message-parts.js';

/** Which events a channel's rules want, from the definitions in docs/notifications.md. */

const event = (change: Partial<EventSummary>): EventSummary => ({
  ...sampleEvent('p', 'web', null),
  previousStatus: null,
  ...change,
});

describe('channel rules', () => {
  it('branch globs: one segment for *, any depth for **, none for an event without a branch', () => {
    const rules: ChannelRules = { notify: ['builds'], branches: ['main', 'release/*', 'team/**'] };
    const on = (branch: string | null) => wants(rules, event({ branch }));
    expect(on('main')).toBe(true);
    expect(on('release/1.2')).toBe(true);
    expect(on('release/1.2/hotfix')).toBe(false);
    expect(on('team/a/b/c')).toBe(true);
    expect(on('mainline')).toBe(false);
    expect(on('feature/main')).toBe(false);
    expect(on(null)).toBe(false);
    // No globs: every branch, and events without one.
    expect(wants({ notify: ['builds'] }, event({ branch: null }))).toBe(true);
    // A glob is a glob, never a negation or an extglob that would widen it.
    expect(wants({ notify: ['builds'], branches: ['!main'] }, event({ branch: 'dev' }))).toBe(
      false,
    );
  });

  it('newly flaky tests: only the flaky choice wants them, on its branches, whatever its event types', () => {
    const flaky = event({
      eventType: 'tests',
      status: null,
      tests: null,
      flaky: { tests: [{ id: 'x', name: 'checkout › pays', score: 0.5 }], more: 0 },
    });
    expect(wants({ notify: ['flaky'] }, flaky)).toBe(true);
    expect(wants({ notify: ['flaky'], eventTypes: ['build'] }, flaky)).toBe(true);
    expect(wants({ notify: ['flaky'], branches: ['release/*'] }, flaky)).toBe(false);
    for (const other of ['builds', 'failures', 'changes', 'releases', 'alerts'] as const) {
      expect(wants({ notify: [other] }, flaky)).toBe(false);
    }
    // And the flaky choice wants no build.
    expect(wants({ notify: ['flaky'] }, event({ status: 'failure' }))).toBe(false);
  });

  it('failures, changes (broken and fixed only) and releases', () => {
    const failures: ChannelRules = { notify: ['failures'] };
    expect(wants(failures, event({ status: 'failure' }))).toBe(true);
    expect(wants(failures, event({ status: 'success' }))).toBe(false);
    expect(wants(failures, event({ status: 'cancelled' }))).toBe(false);

    const changes: ChannelRules = { notify: ['changes'] };
    const following = (previousStatus: string | null, status: string) =>
      wants(changes, event({ previousStatus, status }));
    expect(following('success', 'failure')).toBe(true);
    expect(following('failure', 'success')).toBe(true);
    expect(following('failure', 'failure')).toBe(false);
    expect(following('success', 'success')).toBe(false);
    expect(following(null, 'failure')).toBe(false);
    expect(following('cancelled', 'failure')).toBe(false);
    expect(following('success', 'cancelled')).toBe(false);

    const releases: ChannelRules = { notify: ['releases'] };
    expect(wants(releases, event({ eventType: 'deploy', status: null }))).toBe(true);
    expect(wants(releases, event({ eventType: 'build' }))).toBe(false);
    expect(wants({ notify: ['builds'] }, event({ eventType: 'release' }))).toBe(false);
    expect(wants({ notify: ['builds'], eventTypes: ['test'] }, event({}))).toBe(false);
  });

  it('mentions only on a failure, and only when a mention is set', () => {
    const rules: ChannelRules = { notify: ['builds'], mention: '<!here>' };
    expect(mentions(rules, event({ status: 'failure' }))).toBe(true);
    expect(mentions(rules, event({ status: 'success' }))).toBe(false);
    expect(mentions({ notify: ['builds'] }, event({ status: 'failure' }))).toBe(false);
  });
});
