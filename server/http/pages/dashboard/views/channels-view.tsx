import type { ChannelKind } from '../../../../../contract/channel-targets.js';
import {
  type ChannelInfo,
  ChannelLimits,
  type ChannelTestResult,
  type CreatedChannel,
  type NotifyChoice,
} from '../../../../../contract/channels.js';
import { Limits } from '../../../../../contract/limits.js';
import { Csrf, described, Field, Notice, TextField } from '../form-controls.js';
import type { FieldErrors } from '../form-errors.js';
import { DashboardLayout, type LayoutProps } from './dashboard-layout.js';
import { SimpleTable } from './simple-table.js';

/** The add form's fields as typed, shown again with their errors. */
export interface ChannelForm {
  kind: string;
  name: string;
  url: string;
  notify: NotifyChoice[];
  branches: string;
  mention: string;
  /** `''`, `day` or `week`. */
  digest: string;
  digestAt: string;
}

export interface ChannelsProps extends Omit<LayoutProps, 'title' | 'section' | 'children'> {
  projectId: string;
  projectName: string;
  channels: ChannelInfo[];
  /** The channel just added: a generic webhook's signing secret is shown this once. */
  created?: CreatedChannel | undefined;
  tested?: { name: string; result: ChannelTestResult } | undefined;
  errors: FieldErrors;
  submitted?: ChannelForm | undefined;
}

const KINDS: Record<ChannelKind, string> = {
  slack: 'Slack (incoming webhook)',
  teams: 'Microsoft Teams (workflow webhook)',
  discord: 'Discord (channel webhook)',
  webhook: 'Your own receiver (signed webhook)',
};

const CHOICES: Record<NotifyChoice, string> = {
  builds: 'Every build',
  failures: 'Failures',
  changes: 'Broken and fixed builds',
  releases: 'Releases and deploys',
  alerts: 'Regression alerts',
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
  const path = `/dashboard/projects/${encodeURIComponent(projectId)}/channels`;
  const kind = submitted?.kind ?? 'slack';
  const notify = submitted?.notify ?? ['failures', 'changes'];
  const digest = submitted?.digest ?? '';
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
          columns={['Name', 'Where', 'Hears of', 'Test', 'Delete']}
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
        <TextField
          name="name"
          label="Name"
          value={submitted?.name}
          error={errors.name}
          maxLength={ChannelLimits.name}
          hint="e.g. CI in #builds"
        />
        <TextField
          name="url"
          label="Webhook URL"
          type="url"
          value={submitted?.url}
          error={errors.url}
          maxLength={Limits.webhookUrlLength}
          hint="HTTPS, as the platform gives it. It is stored sealed and never shown in full again."
        />
        <fieldset>
          <legend class="legend">Hears of</legend>
          {Object.entries(CHOICES).map(([value, label]) => (
            <>
              <label class="check">
                <input
                  type="checkbox"
                  name="notify[]"
                  value={value}
                  checked={notify.includes(value as NotifyChoice)}
                />{' '}
                {label}
              </label>
              <br />
            </>
          ))}
          {errors.notify && <p class="error">{errors.notify}</p>}
        </fieldset>
        <TextField
          name="branches"
          label="Branches"
          value={submitted?.branches}
          error={errors.branches}
          hint="Globs, comma-separated (main, release/*). Empty: every branch."
        />
        <TextField
          name="mention"
          label="Mention on failure"
          value={submitted?.mention}
          error={errors.mention}
          maxLength={ChannelLimits.mention}
          hint="A Discord <@&role> or <@user>, a Slack <!subteam^ID>, <!here> or <@user>. Empty: nobody."
        />
        <Field id="digest" label="Digest" error={errors.digest}>
          <select id="digest" name="digest" {...described('digest', errors.digest)}>
            <option value="" selected={digest === ''}>
              None
            </option>
            <option value="day" selected={digest === 'day'}>
              Daily
            </option>
            <option value="week" selected={digest === 'week'}>
              Weekly, on Mondays
            </option>
          </select>
        </Field>
        <TextField
          name="digestAt"
          label="Digest time (UTC)"
          value={submitted?.digestAt ?? '09:00'}
          hint="HH:MM. With a digest, you may leave every choice above unticked: the digest only."
        />
        <div class="actions">
          <button class="button" type="submit">
            Add the channel
          </button>
        </div>
      </form>
    </DashboardLayout>
  );
}
