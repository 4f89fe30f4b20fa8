import { ChannelLimits } from '../../../../../contract/channels.js';
import { Limits } from '../../../../../contract/limits.js';
import { TextField } from '../form-controls.js';
import type { FieldErrors } from '../form-errors.js';
import type { ChannelForm } from './channel-rules-fields.js';

/** Shown beside a write-only field on the edit form. */
const KEEP = 'Leave it blank to keep the current one, which is stored sealed and never shown.';

/**
 * A channel's name and where it sends (the URL, and a Slack app's bot token), the same fields on
 * the add and the edit form. Editing (`editing`: the channel's kind), the URL and the token are
 * write-only: blank, and kept when left so; the token field is there for a Slack app only.
 */
export function TargetFields({
  form,
  errors,
  editing,
}: {
  form: ChannelForm | undefined;
  errors: FieldErrors;
  editing?: { kind: string } | undefined;
}) {
  const tokenField = editing === undefined || editing.kind === 'slack-app';
  const threadField = editing === undefined || editing.kind === 'discord';
  return (
    <>
      <TextField
        name="name"
        label="Name"
        value={form?.name}
        error={errors.name}
        maxLength={ChannelLimits.name}
        hint={editing ? undefined : 'e.g. CI in #builds'}
      />
      <TextField
        name="url"
        label={editing ? 'New webhook URL' : 'Webhook URL'}
        type="url"
        value={form?.url}
        error={errors.url}
        maxLength={Limits.webhookUrlLength}
        autocomplete={editing ? 'off' : undefined}
        hint={
          editing
            ? KEEP
            : "HTTPS, as the platform gives it. It is stored sealed and never shown in full again. A Slack app: the channel's link (https://<workspace>.slack.com/archives/C…)."
        }
      />
      {tokenField && (
        <TextField
          name="token"
          label={editing ? 'New bot token' : 'Bot token (Slack app only)'}
          type="password"
          value=""
          error={errors.token}
          maxLength={255}
          autocomplete="off"
          hint={
            editing
              ? KEEP
              : 'xoxb-…, with the chat:write scope, the app added to the channel. Stored sealed, never shown again.'
          }
        />
      )}
      {threadField && (
        <TextField
          name="thread_id"
          label={editing ? 'Thread id' : 'Thread id (Discord only)'}
          value={form?.threadId}
          error={errors.thread_id}
          maxLength={20}
          autocomplete="off"
          hint="To post in a thread or forum post of the webhook's channel: its id (Copy ID, 17 to 20 digits). Empty: the channel itself."
        />
      )}
    </>
  );
}
