import type {
  TestDetail,
  TestRow,
  TestRunEntry,
} from '../../../../../contract/tests/test-queries.js';
import { Csrf } from '../../dashboard/form-controls.js';
import { formatNumber, formatTime } from '../../project-stats/views/format.js';
import { type TestsPageQuery, testsHref } from '../tests-query.js';
import { type TestsFrame, TestsPage } from './tests-frame.js';
import { duration, percent, testLabel } from './tests-view.js';

export interface TestViewProps {
  /** The owner's dashboard (with the quarantine form) or a share link (read-only). */
  frame: TestsFrame;
  /** The Tests view's path. */
  testsPath: string;
  query: TestsPageQuery;
  detail: TestDetail;
  /** Its line of the Tests view over the range (undefined: it did not run in it). */
  summary: TestRow | undefined;
}

/** A run's outcome: its cell's colour and its words (a pass after failed attempts is flaky). */
function outcome(run: TestRunEntry): { fill: string; label: string } {
  if (run.status === 'passed' && run.attempts > 1)
    return { fill: '#BF8700', label: `passed on retry (${run.attempts} attempts)` };
  if (run.status === 'passed') return { fill: '#2EA043', label: 'passed' };
  if (run.status === 'skipped') return { fill: '#6E7781', label: 'skipped' };
  return { fill: '#CF222E', label: run.status };
}

const anchorOf = (run: TestRunEntry) => `run-${run.run_id}`;

/** The history as a strip of coloured cells, oldest left, newest right; each links to its run. */
function Strip({ runs }: { runs: TestRunEntry[] }) {
  const oldestFirst = [...runs].reverse();
  return (
    <p class="history-strip">
      {oldestFirst.map((run) => {
        const { fill, label } = outcome(run);
        const text = `${formatTime(run.created_at)}: ${label}${run.commit ? ` at ${run.commit.slice(0, 8)}` : ''}`;
        return (
          <a href={`#${anchorOf(run)}`}>
            <svg width="10" height="24" role="img" aria-label={text}>
              <title>{text}</title>
              <rect width="8" height="24" x="1" fill={fill} />
            </svg>
          </a>
        );
      })}
    </p>
  );
}

/** The durations of the runs that ran it, oldest left, as a line scaled to the slowest. */
function DurationChart({ runs }: { runs: TestRunEntry[] }) {
  const ran = [...runs].reverse().filter((run) => run.status !== 'skipped');
  if (ran.length < 2) return <p class="muted">Too few runs for a chart.</p>;
  const width = 600;
  const height = 120;
  const max = Math.max(1, ...ran.map((r) => r.duration_ms));
  const points = ran
    .map((r, i) => {
      const x = (i / (ran.length - 1)) * (width - 8) + 4;
      const y = height - 4 - (r.duration_ms / max) * (height - 8);
      return `${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
  const words = `Duration of its last ${ran.length} runs, from ${duration(ran[0]?.duration_ms ?? 0)} to ${duration(ran.at(-1)?.duration_ms ?? 0)}; slowest ${duration(max)}`;
  return (
    <figure>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        width="100%"
        height={height}
        preserveAspectRatio="none"
        role="img"
        aria-label={words}
      >
        <line x1="0" y1={height - 4} x2={width} y2={height - 4} stroke="#8C959F" stroke-width="1" />
        <polyline points={points} fill="none" stroke="#0969DA" stroke-width="2" />
      </svg>
      <figcaption class="muted">{words} (0 at the grey line).</figcaption>
    </figure>
  );
}

/** What quarantine means for this test, on the owner's form and on a share link's page. */
function QuarantinedNote() {
  return (
    <p>
      <span class="pill off">Quarantined</span> Its failures do not fail builds reported with{' '}
      <code>--quarantine</code>.
    </p>
  );
}

function Quarantine({
  detail,
  csrf,
  action,
}: {
  detail: TestDetail;
  csrf: string;
  action: string;
}) {
  return detail.test.quarantined ? (
    <form method="post" action={action} class="card">
      <Csrf token={csrf} />
      <input type="hidden" name="quarantined" value="false" />
      <QuarantinedNote />
      <button class="button secondary" type="submit">
        Take out of quarantine
      </button>
    </form>
  ) : (
    <form method="post" action={action} class="card">
      <Csrf token={csrf} />
      <input type="hidden" name="quarantined" value="true" />
      <div class="field">
        <label for="reason">Quarantine: reason</label>
        <input id="reason" name="reason" type="text" required maxlength={500} />
      </div>
      <button class="button" type="submit">
        Quarantine this test
      </button>
    </form>
  );
}

/**
 * /dashboard/projects/<id>/tests/<test> and /share/<token>/tests/<test>: one test's history,
 * flaky commits and messages; the owner's has the quarantine form, a share link's only says
 * whether it is quarantined.
 */
export function TestView(props: TestViewProps) {
  const { frame, testsPath, query, detail, summary } = props;
  const flakyCommits = summary?.flaky_commits ?? [];
  const { test, runs, messages } = detail;
  const path = `${testsPath}/${encodeURIComponent(test.id)}`;
  return (
    <TestsPage frame={frame} title={test.name}>
      <div class="stats">
        <div class="page-head">
          <div>
            <h1>{test.name}</h1>
            <p class="lead">
              {testLabel(test)}
              {test.file && ` · ${test.file}${test.line ? `:${test.line}` : ''}`} · first seen{' '}
              {formatTime(test.first_seen)}. <a href={testsHref(testsPath, query)}>All tests</a>
            </p>
          </div>
        </div>
        {frame.kind === 'owner' ? (
          <Quarantine detail={detail} csrf={frame.csrf} action={`${path}/quarantine`} />
        ) : (
          test.quarantined && (
            <div class="card">
              <QuarantinedNote />
            </div>
          )
        )}
        <section class="card" aria-labelledby="history-title">
          <h2 id="history-title" class="section-title">
            History (last {runs.length} runs, newest right)
          </h2>
          {runs.length === 0 ? <p class="empty">No runs.</p> : <Strip runs={runs} />}
          <DurationChart runs={runs} />
        </section>
        <section class="card" aria-labelledby="flaky-title">
          <h2 id="flaky-title" class="section-title">
            Flakiness ({formatTime(new Date(query.range.from).toISOString())} –{' '}
            {formatTime(new Date(query.range.to).toISOString())})
          </h2>
          {summary === undefined ? (
            <p class="empty">It did not run in this range.</p>
          ) : !summary.flaky ? (
            <p class="empty">
              Not flaky: {summary.runs} run(s), failure rate {percent(summary.failure_rate)}.
            </p>
          ) : (
            <>
              <p>
                Flaky score {formatNumber(summary.flaky_score)}; failure rate{' '}
                {percent(summary.failure_rate)} over {summary.runs} run(s); flaked first{' '}
                {formatTime(summary.first_flaky_at as string)}, last{' '}
                {formatTime(summary.last_flaky_at as string)}.
              </p>
              <p>Commits where it flaked (newest first):</p>
              <ul class="flaky-commits">
                {flakyCommits.map((commit) => (
                  <li>
                    <code>{commit}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
        <section class="card" aria-labelledby="messages-title">
          <h2 id="messages-title" class="section-title">
            Failure messages
          </h2>
          {messages.length === 0 ? (
            <p class="empty">No failure in these runs.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Message</th>
                    <th scope="col">Times</th>
                    <th scope="col">Last</th>
                  </tr>
                </thead>
                <tbody>
                  {messages.map((m) => (
                    <tr>
                      <td>
                        <code>{m.message}</code>
                      </td>
                      <td>{formatNumber(m.count)}</td>
                      <td>{formatTime(m.last_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
        <section class="card" aria-labelledby="runs-title">
          <h2 id="runs-title" class="section-title">
            Runs
          </h2>
          {/* Focusable: on a phone the table scrolls sideways, and a keyboard must reach it (axe: scrollable-region-focusable). */}
          <section class="table-wrap" tabindex={0} aria-label="Runs, scrolling sideways">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Commit</th>
                  <th scope="col">Branch</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {runs.map((run) => (
                  <tr id={anchorOf(run)}>
                    <td>{formatTime(run.created_at)}</td>
                    <td>{outcome(run).label}</td>
                    <td>{run.commit ? <code>{run.commit.slice(0, 12)}</code> : '–'}</td>
                    <td>{run.branch ?? '–'}</td>
                    <td>{duration(run.duration_ms)}</td>
                    <td>{run.message ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </section>
      </div>
    </TestsPage>
  );
}
