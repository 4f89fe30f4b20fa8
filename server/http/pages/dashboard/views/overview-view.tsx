import type { ProjectSummary } from '../../../../../contract/summaries.js';
import { Csrf } from '../form-controls.js';
import { DashboardLayout, type LayoutProps } from './dashboard-layout.js';
import { JudgingNotice } from './judging-notice.js';
import { ProjectSummariesTable } from './project-summaries-view.js';

export interface OverviewProps extends Omit<LayoutProps, 'title' | 'section' | 'children'> {
  displayName: string | null;
  alias: string | null;
  visible: boolean;
  forwarding: { enabled: boolean; email: string };
  projects: ProjectSummary[];
  /** Records still to judge when the page stopped waiting for them (0: none). */
  pendingJudging: number;
}

/** The account at a glance: alias, page, forwarding, and every project's last 7 days. */
export function OverviewView(props: OverviewProps) {
  const { displayName, alias, visible, forwarding, projects, csrf, pendingJudging } = props;
  return (
    <DashboardLayout {...props} title="Overview" section="overview">
      <div class="page-head">
        <div>
          <h1>Overview</h1>
          <p class="lead">Your page, your mail alias and your projects.</p>
        </div>
      </div>
      <JudgingNotice pending={pendingJudging} />
      <div class="grid">
        <section class="card" aria-labelledby="alias-title">
          <h2 class="stat-label" id="alias-title">
            Mail alias
          </h2>
          <p class="stat-value">{alias ?? 'Not set yet'}</p>
          <p class="stat-note">
            <a href="/dashboard/account">
              {alias ? 'Change the display name' : 'Choose a display name'}
            </a>
          </p>
        </section>
        <section class="card" aria-labelledby="page-title">
          <h2 class="stat-label" id="page-title">
            Public page
          </h2>
          <p class="stat-value">
            <span class={`pill ${visible ? 'on' : 'off'}`}>
              <span class="dot" aria-hidden="true" />
              {visible ? 'Visible' : 'Hidden'}
            </span>
          </p>
          <p class="stat-note">
            {displayName && visible ? (
              <a href={`/@${displayName}`}>{`/@${displayName}`}</a>
            ) : displayName ? (
              'Only you can see it in the editor.'
            ) : (
              'It needs a display name to have an address.'
            )}
          </p>
          <form method="post" action="/dashboard/site/visibility" class="actions">
            <Csrf token={csrf} />
            <button class="button secondary small" type="submit">
              {visible ? 'Hide the page' : 'Make it visible'}
            </button>
          </form>
        </section>
        <section class="card" aria-labelledby="forwarding-title">
          <h2 class="stat-label" id="forwarding-title">
            Email forwarding
          </h2>
          <p class="stat-value">
            <span class={`pill ${forwarding.enabled ? 'on' : 'off'}`}>
              <span class="dot" aria-hidden="true" />
              {forwarding.enabled ? 'On' : 'Off'}
            </span>
          </p>
          <p class="stat-note">
            {forwarding.enabled ? `To ${forwarding.email}` : 'Mail to the alias is not forwarded.'}
          </p>
        </section>
      </div>
      <section class="card" aria-labelledby="projects-title">
        <div class="page-head">
          <h2 id="projects-title">Projects</h2>
          <a class="button secondary small" href="/dashboard/projects">
            Manage projects
          </a>
        </div>
        <p class="stat-note">
          The last 7 days, the project that needs attention first (failed latest build, active
          alerts, success rate, flaky tests).
        </p>
        <ProjectSummariesTable summaries={projects} />
      </section>
    </DashboardLayout>
  );
}
