import type { ExportKind } from '../../../../../contract/export.js';
import type { Project } from '../../../../../contract/projects.js';
import { MAX_RETENTION_DAYS } from '../../../../../contract/retention.js';
import { formatWithUnit } from '../../../../domain/unit-format.js';
import type { ProjectUse } from '../../../../services/storage-use-service.js';
import { Csrf, Notice, TextField } from '../form-controls.js';
import { DashboardLayout, type LayoutProps } from './dashboard-layout.js';
import { SimpleTable } from './simple-table.js';

export interface ProjectDataProps extends Omit<LayoutProps, 'title' | 'section' | 'children'> {
  project: Project;
  /** The last measurement; undefined while the first is under way. */
  use: ProjectUse | undefined;
  retentionDays: number | null;
  /** A refused retention form: the days as typed and why. */
  refused?: { value: string; error: string } | undefined;
}

const KINDS: { kind: ExportKind; label: string }[] = [
  { kind: 'events', label: 'Events' },
  { kind: 'metrics', label: 'Metric records' },
  { kind: 'records', label: 'Events and metrics (importable)' },
  { kind: 'tests', label: 'Test results' },
];

const count = (n: number) => n.toLocaleString('en-US');
/** `2026-11-27 06:50 UTC` */
const measuredTime = (t: number) =>
  `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * GET /dashboard/projects/<id>/data: what the project stores (rows, estimated bytes), how long
 * its raw records are kept (pinned ones always), and its export (docs/export.md).
 */
export function ProjectDataView(props: ProjectDataProps) {
  const { project, use, retentionDays, refused, csrf } = props;
  const base = `/dashboard/projects/${encodeURIComponent(project.id)}`;
  return (
    <DashboardLayout {...props} title={`Data of ${project.name}`} section="projects">
      <div class="page-head">
        <div>
          <h1>Data of {project.name}</h1>
          <p class="lead">
            What the project stores, how long, and its export. <a href={base}>Its statistics</a>
          </p>
        </div>
      </div>
      {refused && <Notice tone="bad">The retention is not changed: {refused.error}</Notice>}
      <div class="two-col">
        <section class="card" aria-labelledby="use-title">
          <h2 id="use-title">Storage use</h2>
          {use === undefined ? (
            <p class="stat-note" id="use-measuring">
              Being measured: reload the page in a moment.
            </p>
          ) : (
            <>
              <SimpleTable columns={['Stored', 'Count']} empty="">
                <tr>
                  <td>Events</td>
                  <td>{count(use.events)}</td>
                </tr>
                <tr>
                  <td>Metric records</td>
                  <td>{count(use.metrics)}</td>
                </tr>
                <tr>
                  <td>Test results</td>
                  <td>{count(use.testResults)}</td>
                </tr>
                <tr>
                  <td>Pinned records</td>
                  <td>{count(use.pinned)}</td>
                </tr>
                <tr>
                  <td>On disk (estimate)</td>
                  <td>{formatWithUnit(use.bytes, 'bytes')}</td>
                </tr>
              </SimpleTable>
              <p class="stat-note" id="use-measured">
                {`Measured ${measuredTime(use.measuredAt)}`}, in the background (at most every 10
                minutes, and after a change): counting a large project's records takes a moment.
              </p>
            </>
          )}
          <p class="stat-note">
            The raw records with their indexes: each table's size shared by rows. The statistics
            cells are not counted.
          </p>
        </section>
        <form method="post" action={`${base}/data/retention`} class="card" novalidate>
          <Csrf token={csrf} />
          <h2>Retention</h2>
          <p class="stat-note">
            {retentionDays === null
              ? 'Raw records are kept forever.'
              : `Raw records are kept ${count(retentionDays)} days.`}{' '}
            {use === undefined
              ? 'Pinned records are never deleted.'
              : `${count(use.pinned)} pinned ${use.pinned === 1 ? 'record is' : 'records are'} never deleted.`}
          </p>
          <TextField
            name="retention_days"
            label="Keep raw records for (days)"
            value={refused ? refused.value : retentionDays === null ? '' : String(retentionDays)}
            error={refused?.error}
            hint={`1 to ${count(MAX_RETENTION_DAYS)} days; empty keeps them forever. The statistics stay, so charts still draw.`}
          />
          <div class="actions">
            <button class="button" type="submit">
              Save the retention
            </button>
          </div>
        </form>
      </div>
      <section class="card" aria-labelledby="export-title">
        <h2 id="export-title">Export</h2>
        <p class="stat-note">
          Everything stored, oldest first. The NDJSON of events and metrics goes back into a server
          with <code>POST /stats/import-records</code>; CSV is for spreadsheets.
        </p>
        <SimpleTable columns={['Kind', 'Download']} empty="">
          {KINDS.map(({ kind, label }) => (
            <tr>
              <td>{label}</td>
              <td>
                {(['ndjson', 'csv'] as const).map((format) => (
                  <span>
                    <a href={`${base}/export?kind=${kind}&format=${format}`} download>
                      {format.toUpperCase()}
                      <span class="sr-only">{` of ${label.toLowerCase()}`}</span>
                    </a>{' '}
                  </span>
                ))}
              </td>
            </tr>
          ))}
        </SimpleTable>
      </section>
    </DashboardLayout>
  );
}
