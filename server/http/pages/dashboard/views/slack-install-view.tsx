import { DashboardLayout, type LayoutProps } from './dashboard-layout.js';

export interface SlackInstallProps extends Omit<LayoutProps, 'title' | 'section' | 'children'> {
  heading: string;
  text: string;
  /** Where to go on from here: the project's channels, when the installation named one. */
  back: { href: string; label: string };
}

/** What came of an "Add to Slack" that made no channel: why, and that nothing changed. */
export function SlackInstallView(props: SlackInstallProps) {
  const { heading, text, back } = props;
  return (
    <DashboardLayout {...props} title={heading} section="projects">
      <section class="card" aria-labelledby="slack-install-title">
        <h1 id="slack-install-title">{heading}</h1>
        <p>{text}</p>
        <p>Nothing was added.</p>
        <p>
          <a class="button" href={back.href}>
            {back.label}
          </a>
        </p>
      </section>
    </DashboardLayout>
  );
}
