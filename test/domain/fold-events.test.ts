import { describe, expect, it } from 'vitest';
import { HOUR_MS, MINUTE_MS, TEN_MINUTES_MS } from '../../server/domain/time-buckets.js';
import { type FoldEvent, foldEvents } from '../../server/storage/stats-fold.js';

/** The cells as the docs define them, counted here one event at a time with no shortcut. */
function expected(events: FoldEvent[]) {
  const cells = new Map<string, { key: unknown[]; counts: [number, number, number, number] }>();
  for (const e of events) {
    const column = ['success', 'failure', 'cancelled'].indexOf(e.status ?? '');
    for (const unit of [HOUR_MS, TEN_MINUTES_MS, MINUTE_MS]) {
      const start = e.createdAt - (e.createdAt % unit);
      const key = [e.projectId, unit, start, e.eventType, e.branch ?? ''];
      const id = JSON.stringify(key);
      const cell = cells.get(id) ?? { key, counts: [0, 0, 0, 0] };
      cell.counts[(column === -1 ? 3 : column) as 0] += 1;
      cells.set(id, cell);
    }
  }
  return [...cells.values()].map(({ key, counts }) => [...key, ...counts]);
}

const rows = (events: FoldEvent[]) =>
  foldEvents(events).map((c) => [c.projectId, c.unit, c.start, c.eventType, c.branch, ...c.counts]);

const sorted = (cells: unknown[][]) => cells.map((c) => JSON.stringify(c)).sort();

const T = Date.UTC(2026, 10, 28, 13, 59, 58);
const event = (over: Partial<FoldEvent>): FoldEvent => ({
  projectId: 'p',
  eventType: 'build',
  branch: 'main',
  status: 'success',
  createdAt: T,
  ...over,
});

describe('foldEvents', () => {
  it.each<[string, FoldEvent[]]>([
    ['one run of alike events', Array.from({ length: 5 }, () => event({}))],
    [
      'alike events across a minute, ten minutes and an hour',
      [event({}), event({ createdAt: T + 1_000 }), event({ createdAt: T + 2_000 }), event({})],
    ],
    [
      'alternating projects, types and branches (none follows its like)',
      Array.from({ length: 12 }, (_, i) =>
        event({
          projectId: `p${i % 2}`,
          eventType: i % 3 === 0 ? 'deploy' : 'build',
          branch: i % 4 === 0 ? null : 'main',
          status: ['success', 'failure', 'cancelled', null, 'weird'][i % 5] as string | null,
        }),
      ),
    ],
    [
      'a branch named like none, beside none',
      [event({ branch: '' }), event({ branch: null }), event({ branch: '' })],
    ],
    [
      'an event type ending where a branch begins',
      [event({ eventType: 'ab', branch: 'c' }), event({ eventType: 'a', branch: 'bc' })],
    ],
    [
      'a long mixed run',
      Array.from({ length: 400 }, (_, i) =>
        event({
          projectId: `p${Math.floor(i / 50) % 3}`,
          eventType: Math.floor(i / 7) % 2 === 0 ? 'build' : 'test',
          branch: Math.floor(i / 11) % 3 === 0 ? null : `b${Math.floor(i / 13) % 2}`,
          status: i % 9 === 0 ? 'failure' : 'success',
          createdAt: T + i * 17_000,
        }),
      ),
    ],
  ])('%s: the cells counted one by one', (_name, events) => {
    expect(sorted(rows(events))).toEqual(sorted(expected(events)));
  });
});
