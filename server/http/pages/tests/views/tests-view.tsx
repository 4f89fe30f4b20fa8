import type { ComponentChildren } from 'preact';
import type { TestList, TestOrder, TestRow } from '../../../../../contract/tests/test-queries.js';
import { RANGE_PRESETS } from '../../../../domain/view-ranges.js';
import type { TestFigures } from '../../../../services/tests/test-query-service.js';
import { formatNumber, formatTime } from '../../project-stats/views/format.js';
import { statsHref } from '../../project-stats/views/project-stats-view.js';
import { type Tab, type TestsPageQuery, testsHref } from '../tests-query.js';
import { type TestsFrame, TestsPage } from './tests-frame.js';

export interface TestsViewProps {
  /** The owner's dashboard or a share link (read-only). */
  frame: TestsFrame;
  /** The project page's path (the owner's or the share link's); the Tests view is under it. */
  projectPath: string;
  query: TestsPageQuery;
  headline: { current: TestFigures; previous: TestFigures };
  list: TestList;
}

const TAB_LABELS: Record<Tab, string> = {
  flaky: 'Flaky',
  failing: 'Most failing',
  slowest: 'Slowest',
  all: 'All tests',
};

/** Each tab's own order: the column and the way its list is ranked without `order`. */
const TAB_ORDER: Record<Tab, { order: TestOrder; dir: 'asc' | 'desc' }> = {
  flaky: { order: 'flaky_score', dir: 'desc' },
  failing: { order: 'failure_rate', dir: 'desc' },
  slowest: { order: 'p95', dir: 'desc' },
  all: { order: 'name', dir: 'asc' },
};

/** The list's order as shown: the column asked for, else the tab's own. */
function shownOrder(query: TestsPageQuery) {
  if (query.order === undefined) return TAB_ORDER[query.tab];
  return { order: query.order, dir: query.dir ?? (query.order === 'name' ? 'asc' : 'desc') };
}

/**
 * A column's head: a link that orders the list by it (the name A to Z, numbers largest first)
 * or, when it already does, the other way; `aria-sort` says which way it is now.
 */
function SortableHead({
  label,
  order,
  path,
  query,
}: {
  label: string;
  order: TestOrder;
  path: string;
  query: TestsPageQuery;
}) {
  const shown = shownOrder(query);
  const current = shown.order === order;
  const first = order === 'name' ? 'asc' : 'desc';
  const dir = current ? (shown.dir === 'asc' ? 'desc' : 'asc') : first;
  const sorted = shown.dir === 'asc' ? 'ascending' : 'descending';
  return (
    <th scope="col" aria-sort={current ? sorted : undefined}>
      <a href={testsHref(path, query, { order, dir, cursorText: undefined })}>
        {label}
        {current ? (shown.dir === 'asc' ? ' ▲' : ' ▼') : ''}
      </a>
    </th>
  );
}

export const percent = (rate: number | null) =>
  rate === null ? '–' : `${formatNumber(Math.round(rate * 1000) / 10)} %`;
export const duration = (ms: number | null) =>
  ms === null ? '–' : ms < 1000 ? `${formatNumber(ms)} ms` : `${formatNumber(ms / 1000)} s`;

/** A test as one line: suite › class › name. */
export const testLabel = (test: { suite: string; classname: string | null; name: string }) =>
  [test.suite, test.classname, test.name].filter(Boolean).join(' › ');

/** Whether a figure is better higher, lower, or neither (the count of tests that ran). */
type Direction = 'higher' | 'lower' | null;

/**
 * A figure's change against the period before, as the project page's headline shows its own
 * (project-stats/views/headline.tsx): ▲ or ▼ and by how much, coloured `good` or `bad` by the
 * figure's direction (neither for a figure without one, or when nothing changed), with the
 * figure of the period before. Screen readers hear "up"/"down" and "better"/"worse" in words,
 * since the arrow and the colour are hidden from them.
 */
function Change({
  id,
  now,
  before,
  direction,
  format,
  show = format,
}: {
  id: string;
  now: number | null;
  before: number | null;
  direction: Direction;
  /** The size of the change. */
  format: (n: number) => string;
  /** The figure of the period before, as the card shows its own. */
  show?: (n: number) => string;
}) {
  if (now === null || before === null) {
    return (
      <span class="change change-none" data-change={id}>
        no figure for the period before
      </span>
    );
  }
  const diff = now - before;
  if (diff === 0) {
    return (
      <span class="change change-same" data-change={id}>
        same as the period before
      </span>
    );
  }
  const better = direction === null ? undefined : diff > 0 === (direction === 'higher');
  const tone = better === undefined ? 'same' : better ? 'good' : 'bad';
  return (
    <span class={`change change-${tone}`} data-change={id}>
      <span aria-hidden="true">{diff > 0 ? '▲' : '▼'}</span>
      <span class="sr-only">{diff > 0 ? 'up' : 'down'}</span>
      {` ${format(Math.abs(diff))} on the period before`}
      {tone !== 'same' && <span class="sr-only">{better ? ' (better)' : ' (worse)'}</span>}
      {` (before: ${show(before)})`}
    </span>
  );
}

const points = (n: number) => `${formatNumber(Math.round(n * 1000) / 10)} points`;

function Headline({ current, previous }: TestsViewProps['headline']) {
  const cards: [string, string, ComponentChildren][] = [
    [
      'Tests',
      formatNumber(current.tests),
      <>
        {formatNumber(current.runs)} run(s);{' '}
        <Change
          id="tests"
          now={current.tests}
          before={previous.tests}
          direction={null}
          format={formatNumber}
        />
      </>,
    ],
    [
      'Pass rate',
      percent(current.passRate),
      <Change
        id="pass_rate"
        now={current.passRate}
        before={previous.passRate}
        direction="higher"
        format={points}
        show={percent}
      />,
    ],
    [
      'Flaky tests',
      formatNumber(current.flaky),
      // Fewer flaky tests is better; the period before's count is analysed from its own runs
      // alone (test-query-service.ts, view).
      <Change
        id="flaky"
        now={current.flaky}
        before={previous.flaky}
        direction="lower"
        format={formatNumber}
      />,
    ],
    [
      'Suite time (median run)',
      duration(current.suiteMs),
      <Change
        id="suite_time"
        now={current.suiteMs}
        before={previous.suiteMs}
        direction="lower"
        format={(n) => duration(n)}
      />,
    ],
  ];
  return (
    <section class="grid" aria-label="Headline">
      {cards.map(([label, value, note]) => (
        <div class="card">
          <p class="stat-label">{label}</p>
          <p class="stat-value">{value}</p>
          <p class="stat-note">{note}</p>
        </div>
      ))}
    </section>
  );
}

function Filters({ path, query }: { path: string; query: TestsPageQuery }) {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const { range } = query;
  return (
    <form method="get" action={path} class="card filters">
      <input type="hidden" name="tab" value={query.tab} />
      {query.order !== undefined && <input type="hidden" name="order" value={query.order} />}
      {query.dir !== undefined && <input type="hidden" name="dir" value={query.dir} />}
      <div class="field">
        <label for="range">Time range</label>
        <select id="range" name="range">
          {Object.entries(RANGE_PRESETS).map(([id, preset]) => (
            <option value={id} selected={range.preset === id}>
              Last {preset.label}
            </option>
          ))}
          <option value="custom" selected={range.preset === 'custom'}>
            Custom days
          </option>
        </select>
      </div>
      <div class="field">
        <label for="from">From (custom)</label>
        <input id="from" name="from" type="date" value={day(range.from)} />
      </div>
      <div class="field">
        <label for="to">To (custom, inclusive)</label>
        <input id="to" name="to" type="date" value={day(range.to - 1)} />
      </div>
      <div class="field">
        <label for="branch">Branch</label>
        <input id="branch" name="branch" type="text" value={query.branch ?? ''} placeholder="all" />
      </div>
      <div class="field">
        <label for="q">Search tests</label>
        <input id="q" name="q" type="search" value={query.q ?? ''} />
      </div>
      <div class="actions">
        <button class="button" type="submit">
          Apply
        </button>
      </div>
    </form>
  );
}

function Row({ test, href, tab }: { test: TestRow; href: string; tab: Tab }) {
  return (
    <tr>
      <td>
        <a href={href}>{testLabel(test)}</a>
        {test.quarantined && <span class="pill off"> quarantined</span>}
        {test.file && <div class="muted">{test.file}</div>}
      </td>
      <td>{formatNumber(test.runs)}</td>
      <td>{percent(test.failure_rate)}</td>
      {tab === 'flaky' && (
        <>
          <td>{formatNumber(test.flaky_score)}</td>
          <td>
            {test.last_flaky_at ? formatTime(test.last_flaky_at) : '–'}
            {test.flaky_commits.length > 0 && (
              <div class="muted">at {test.flaky_commits.map((c) => c.slice(0, 8)).join(', ')}</div>
            )}
          </td>
        </>
      )}
      <td>{duration(test.p50_ms)}</td>
      {tab === 'slowest' && <td>{duration(test.p50_previous_ms)}</td>}
      <td>{duration(test.p95_ms)}</td>
    </tr>
  );
}

/** The project page with the Tests view's range and branch. */
export const projectHref = (projectPath: string, query: TestsPageQuery) =>
  statsHref(projectPath, { range: query.range, branch: query.branch });

/**
 * /dashboard/projects/<id>/tests and /share/<token>/tests: flaky, most failing, slowest and all
 * tests, each list ordered by any of its columns, with a search.
 */
export function TestsView(props: TestsViewProps) {
  const { frame, projectPath, query, headline, list } = props;
  const path = `${projectPath}/tests`;
  const { range } = query;
  return (
    <TestsPage frame={frame} title="Tests">
      <div class="stats">
        <div class="page-head">
          <div>
            <h1>Tests</h1>
            <p class="lead">
              {formatTime(new Date(range.from).toISOString())} –{' '}
              {formatTime(new Date(range.to).toISOString())},{' '}
              {query.branch === undefined
                ? `flips judged on ${list.branch ?? 'no branch'}`
                : `branch ${query.branch}`}
              . <a href={projectHref(projectPath, query)}>Back to the project</a>
            </p>
          </div>
        </div>
        <Filters path={path} query={query} />
        <Headline {...headline} />
        <nav class="card" aria-label="Test lists">
          {(Object.keys(TAB_LABELS) as Tab[]).map((tab) => (
            <>
              <a
                class={tab === query.tab ? 'button small' : 'button small secondary'}
                href={testsHref(path, query, { tab })}
                aria-current={tab === query.tab ? 'page' : undefined}
              >
                {TAB_LABELS[tab]}
              </a>{' '}
            </>
          ))}
        </nav>
        <section class="card" aria-labelledby="list-title">
          <h2 id="list-title" class="section-title">
            {TAB_LABELS[query.tab]}
            {query.q === undefined ? '' : `, matching “${query.q}”`}
          </h2>
          {list.tests.length === 0 ? (
            <p class="empty">
              {query.tab === 'flaky'
                ? 'No flaky test in this range.'
                : query.tab === 'failing'
                  ? 'No failing test in this range.'
                  : 'No test ran in this range.'}
            </p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    {(
                      [
                        ['Test', 'name'],
                        ['Runs', 'runs'],
                        ['Failure rate', 'failure_rate'],
                        ...(query.tab === 'flaky'
                          ? [
                              ['Flaky score', 'flaky_score'],
                              ['Last flaked', 'last_flaky_at'],
                            ]
                          : []),
                        ['p50', 'p50'],
                        ['p95', 'p95'],
                      ] as [string, TestOrder][]
                    ).map(([label, order]) => (
                      <>
                        <SortableHead label={label} order={order} path={path} query={query} />
                        {order === 'p50' && query.tab === 'slowest' && (
                          <th scope="col">p50, period before</th>
                        )}
                      </>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {list.tests.map((test) => (
                    <Row
                      test={test}
                      tab={query.tab}
                      href={testsHref(`${path}/${encodeURIComponent(test.id)}`, query)}
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {list.nextCursor && (
            <p class="pager">
              <a href={testsHref(path, query, { cursorText: list.nextCursor })}>Next page</a>
            </p>
          )}
        </section>
      </div>
    </TestsPage>
  );
}
