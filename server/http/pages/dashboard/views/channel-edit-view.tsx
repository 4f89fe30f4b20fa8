import type { ChannelInfo } from '../../../../../contract/channels.js';
import { Csrf } from '../form-controls.js';
import type { FieldErrors } from '../form-errors.js';
import { type ChannelForm, RulesFields } from './channel-rules-fields.js';
import { TargetFields } from './channel-target-fields.js';
import { DashboardLayout, type LayoutProps } from './dashboard-layout.js';

export interface ChannelEditProps extends Omit<LayoutProps, 'title' | 'section' | 'children'> {
  projectId: string;
  projectName: string;
  channel: ChannelInfo;
  /** The form as shown: the channel's name and rules, or what was sent and refused. */
  form: ChannelForm;
  errors: FieldErrors;
}

/**
 * GET /dashboard/projects/<id>/channels/<channel>/edit: a channel's name, rules and digest, and
 * a new URL. The stored URL (and a generic webhook's signing secret) is never shown: the field
 * is blank, and a blank one keeps it.
 */
export function ChannelEditView(props: ChannelEditProps) {
  const { projectId, projectName, channel, form, errors, csrf } = props;
  const list = `/dashboard/projects/${encodeURIComponent(projectId)}/channels`;
  return (
    <DashboardLayout {...props} title={`Edit ${channel.name} · ${projectName}`} section="projects">
      <div class="page-head">
        <div>
          <h1>Edit {channel.name}</h1>
          <p class="lead">
            A channel of {projectName}. <a href={list}>Back to the channels</a>
          </p>
        </div>
      </div>
      <form
        method="post"
        action={`${list}/${encodeURIComponent(channel.id)}/edit`}
        class="card"
        novalidate
      >
        <Csrf token={csrf} />
        {errors.form && <p class="error">{errors.form}</p>}
        <p>
          Sends to <code class="wrap-anywhere">{channel.target}</code>
        </p>
        <TargetFields form={form} errors={errors} editing={channel} />
        <RulesFields form={form} errors={errors} />
        <div class="actions">
          <button class="button" type="submit">
            Save the channel
          </button>
          <a class="button secondary" href={list}>
            Cancel
          </a>
        </div>
      </form>
    </DashboardLayout>
  );
}
