import type { ChannelKind } from '../../../../../contract/channel-targets.js';
import type {
  ChannelInfo,
  ChannelTestResult,
  CreatedChannel,
} from '../../../../../contract/channels.js';
import { Csrf, described, Field, Notice } from '../form-controls.js';
import type { FieldErrors } from '../form-errors.js';
import { CHOICES, type ChannelForm, RulesFields } from './channel-rules-fields.js';
import { TargetFields } from './channel-target-fields.js';
import { DashboardLayout, type LayoutProps } from './dashboard-layout.js';
import { SimpleTable } from './simple-table.js';

export type { ChannelForm };

export interface ChannelsProps extends Omit<LayoutProps, 'title' | 'section' | 'children'> {
  projectId: string;
  projectName: string;
  channels: ChannelInfo[];
  /** The channel just added: a generic webhook's signing secret is shown this once. */
  created?: CreatedChannel | undefined;
  tested?: { name: string; result: ChannelTestResult } | undefined;
  errors: FieldErrors;
  submitted?: ChannelForm | undefined;
  /** The operator configured a Slack app: the "Add to Slack" button is shown. */
  slackInstall: boolean;
}

const KINDS: Record<ChannelKind, string> = {
  slack: 'Slack (incoming webhook)',
  'slack-app': 'Slack (app with a bot token: messages edited in place)',
  teams: 'Microsoft Teams (workflow webhook)',
  discord: 'Discord (channel webhook)',
  webhook: 'Your own receiver (signed webhook)',
};

/** `Failures, Releases on main, release/*; daily digest at 09:00 UTC`. */
function rulesText(channel: ChannelInfo): string {
  const { notify, branches, digest, mention } = channel.rules;
  const what = notify.length > 0 ? notify.map((n) => CHOICES[n]).join(', ') : 'Digest only';
  const where = branches?.length ? ` on ${branches.join(', ')}` : '';
  const when = digest
    ? `; ${digest.every === 'day' ? 'daily' : 'weekly (Mondays)'} digest at ${digest.at} UTC`
    : '';
  const who = mention ? `; failures mention ${mention}` : '';
  return `${what}${where}${when}${who}`;
}

/** GET /dashboard/projects/<id>/channels: where the project's notifications go. */
export function ChannelsView(props: ChannelsProps) {
  const { projectId, projectName, channels, created, tested, errors, submitted, csrf } = props;
  const { slackInstall } = props;
  const path = `/dashboard/projects/${encodeURIComponent(projectId)}/channels`;
  const kind = submitted?.kind ?? 'slack';
  return (
    <DashboardLayout {...props} title={`Channels · ${projectName}`} section="projects">
      <div class="page-head">
        <div>
          <h1>Channels of {projectName}</h1>
          <p class="lead">
            Send this project's builds, releases and alerts to Slack, Teams, Discord or your own
            receiver.{' '}
            <a href={`/dashboard/projects/${encodeURIComponent(projectId)}`}>Back to the project</a>
          </p>
        </div>
      </div>
      {tested && (
        <Notice tone={tested.result.delivered ? 'ok' : 'bad'}>
          {tested.result.delivered
            ? `A sample message went to ${tested.name}.`
            : `${tested.name} did not take the sample: ${tested.result.error ?? 'no answer'}`}
        </Notice>
      )}
      {created && (
        <section class="card" aria-labelledby="created-title">
          <h2 id="created-title">{`${created.name} is added`}</h2>
          {created.signingSecret ? (
            <>
              <p>
                Give this signing secret to your receiver, to verify each message (Standard
                Webhooks). It is shown this once and never again.
              </p>
              <code class="secret">{created.signingSecret}</code>
            </>
          ) : (
            <p>Its URL is stored sealed; only its start is shown from now on.</p>
          )}
        </section>
      )}
      <section class="card" aria-labelledby="channels-title">
        <h2 id="channels-title">Channels</h2>
        <SimpleTable
          columns={['Name', 'Where', 'Hears of', 'Edit', 'Test', 'Delete']}
          empty="No channels yet."
        >
          {channels.map((channel) => (
            <tr>
              <td>{channel.name}</td>
              <td>
                {KINDS[channel.kind]}
                <br />
                <code>{channel.target}</code>
              </td>
              <td>{rulesText(channel)}</td>
              <td>
                <a class="button small" href={`${path}/${encodeURIComponent(channel.id)}/edit`}>
                  Edit<span class="sr-only">{` ${channel.name}`}</span>
                </a>
              </td>
              <td>
                <form method="post" action={`${path}/test`} class="inline-form">
                  <Csrf token={csrf} />
                  <input type="hidden" name="channelId" value={channel.id} />
                  <button class="button small" type="submit">
                    Send a test<span class="sr-only">{` to ${channel.name}`}</span>
                  </button>
                </form>
              </td>
              <td>
                <form method="post" action={`${path}/delete`} class="inline-form">
                  <Csrf token={csrf} />
                  <input type="hidden" name="channelId" value={channel.id} />
                  <button class="button danger small" type="submit">
                    Delete<span class="sr-only">{` ${channel.name}`}</span>
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </SimpleTable>
      </section>
      {slackInstall && (
        <form method="post" action={`${path}/slack`} class="card">
          <Csrf token={csrf} />
          <h2>Add to Slack</h2>
          <p>
            Install this server's Slack app in your workspace and pick the channel there: its
            messages are then edited in place as each build goes on. Nothing to copy or paste.
          </p>
          <div class="actions">
            <button class="button" type="submit">
              Add to Slack
            </button>
          </div>
        </form>
      )}
      <form method="post" action={path} class="card" novalidate>
        <Csrf token={csrf} />
        <h2>Add a channel</h2>
        {errors.form && <p class="error">{errors.form}</p>}
        <Field id="kind" label="Where" error={errors.kind}>
          <select id="kind" name="kind" {...described('kind', errors.kind)}>
            {Object.entries(KINDS).map(([value, label]) => (
              <option value={value} selected={kind === value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <TargetFields form={submitted} errors={errors} />
        <RulesFields form={submitted} errors={errors} />
        <div class="actions">
          <button class="button" type="submit">
            Add the channel
          </button>
        </div>
      </form>
    </DashboardLayout>
  );
}
