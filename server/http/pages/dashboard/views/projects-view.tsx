import { Limits } from '../../../../../contract/limits.js';
import type { Project } from '../../../../../contract/projects.js';
import { formatWithUnit } from '../../../../domain/unit-format.js';
import type { ProjectUse } from '../../../../services/storage-use-service.js';
import { Csrf, TextField } from '../form-controls.js';
import type { FieldErrors } from '../form-errors.js';
import { DashboardLayout, type LayoutProps } from './dashboard-layout.js';
import { SimpleTable } from './simple-table.js';

export interface ProjectsProps extends Omit<LayoutProps, 'title' | 'section' | 'children'> {
  projects: Project[];
  /** Each project's storage use, by id. */
  uses: Map<string, ProjectUse>;
  errors: FieldErrors;
  name?: string | undefined;
}

/** GET /dashboard/projects: the account's projects, each leading to its statistics. */
export function ProjectsView(props: ProjectsProps) {
  const { projects, uses, errors, name, csrf } = props;
  return (
    <DashboardLayout {...props} title="Projects" section="projects">
      <div class="page-head">
        <div>
          <h1>Projects</h1>
          <p class="lead">Each project collects its own events and metrics.</p>
        </div>
      </div>
      <div class="two-col">
        <section class="card" aria-labelledby="list-title">
          <h2 id="list-title">Your projects</h2>
          <SimpleTable
            columns={['Name', 'Project id', 'Created', 'Stored', 'Verdicts']}
            empty="No projects yet."
          >
            {projects.map((project) => (
              <tr>
                <td>
                  <a href={`/dashboard/projects/${encodeURIComponent(project.id)}`}>
                    {project.name}
                  </a>
                </td>
                <td>
                  <code>{project.id}</code>
                </td>
                <td class="muted">{project.created_at.slice(0, 10)}</td>
                <td>
                  <StoredCell use={uses.get(project.id)} />{' '}
                  <a href={`/dashboard/projects/${encodeURIComponent(project.id)}/data`}>
                    Data, retention and export
                    <span class="sr-only">{` of ${project.name}`}</span>
                  </a>
                </td>
                <td>
                  <a href={`/dashboard/projects/${encodeURIComponent(project.id)}/series`}>
                    Series and thresholds
                    <span class="sr-only">{` of ${project.name}`}</span>
                  </a>
                </td>
              </tr>
            ))}
          </SimpleTable>
        </section>
        <form method="post" action="/dashboard/projects" class="card" novalidate>
          <Csrf token={csrf} />
          <h2>New project</h2>
          <TextField
            name="name"
            label="Name"
            value={name}
            error={errors.name}
            maxLength={Limits.projectNameLength}
            hint="Unique in your account, whatever the case."
          />
          <div class="actions">
            <button class="button" type="submit">
              Create the project
            </button>
          </div>
        </form>
      </div>
    </DashboardLayout>
  );
}

/** A project's records (events, metric records, test results) and their estimated bytes. */
function StoredCell({ use }: { use: ProjectUse | undefined }) {
  if (use === undefined) return <span class="muted">being measured</span>;
  const n = (count: number) => count.toLocaleString('en-US');
  return (
    <span class="stored">
      {`${n(use.events)} events, ${n(use.metrics)} metric records, ${n(use.testResults)} test results: ${formatWithUnit(use.bytes, 'bytes')}`}
    </span>
  );
}
