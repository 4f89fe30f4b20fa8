import { ChannelLimits, type NotifyChoice } from '../../../../../contract/channels.js';
import { described, Field, TextField } from '../form-controls.js';
import type { FieldErrors } from '../form-errors.js';

/** A channel form's fields as typed (add and edit), shown again with their errors. */
export interface ChannelForm {
  kind: string;
  name: string;
  /** Blank on the edit form: the stored URL is kept. */
  url: string;
  /** A Slack app's bot token; never shown again, blank on the edit form keeps it. */
  token: string;
  /** A Discord channel's thread id; blank: none. */
  threadId: string;
  notify: NotifyChoice[];
  branches: string;
  mention: string;
  /** `''`, `day` or `week`. */
  digest: string;
  digestAt: string;
}

export const CHOICES: Record<NotifyChoice, string> = {
  builds: 'Every build',
  failures: 'Failures',
  changes: 'Broken and fixed builds',
  releases: 'Releases and deploys',
  alerts: 'Regression alerts',
  flaky: 'Newly flaky tests',
};

/** What a channel hears of, the same on the add and the edit form. */
export function RulesFields({
  form,
  errors,
}: {
  form: ChannelForm | undefined;
  errors: FieldErrors;
}) {
  const notify = form?.notify ?? ['failures', 'changes'];
  const digest = form?.digest ?? '';
  return (
    <>
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
        value={form?.branches}
        error={errors.branches}
        hint="Globs, comma-separated (main, release/*). Empty: every branch."
      />
      <TextField
        name="mention"
        label="Mention on failure"
        value={form?.mention}
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
        value={form?.digestAt ?? '09:00'}
        hint="HH:MM. With a digest, you may leave every choice above unticked: the digest only."
      />
    </>
  );
}
