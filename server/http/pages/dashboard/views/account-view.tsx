import { Limits } from '../../../../../contract/limits.js';
import { Csrf, described, Field, TextField } from '../form-controls.js';
import type { FieldErrors } from '../form-errors.js';
import { DashboardLayout, type LayoutProps } from './dashboard-layout.js';

export interface AccountProps extends Omit<LayoutProps, 'title' | 'section' | 'children'> {
  displayName: string;
  alias: string | null;
  mailDomain: string;
  forwarding: { enabled: boolean; email: string };
  errors: FieldErrors;
}

/** GET /dashboard/account: the display name (the alias) and email forwarding. */
export function AccountView(props: AccountProps) {
  const { displayName, alias, mailDomain, forwarding, errors, csrf } = props;
  return (
    <DashboardLayout {...props} title="Account" section="account">
      <div class="page-head">
        <div>
          <h1>Account</h1>
          <p class="lead">Your display name is your page's address and your mail alias.</p>
        </div>
      </div>
      <div class="two-col">
        <div>
          <form method="post" action="/dashboard/account/name" class="card" novalidate>
            <Csrf token={csrf} />
            <h2>Display name</h2>
            <TextField
              name="display_name"
              label="Display name"
              value={displayName}
              error={errors.display_name}
              maxLength={200}
              autocomplete="off"
              hint={`3 to ${Limits.displayNameMax} characters: a-z, 0-9 and single dashes (it is normalised). Your alias becomes <name>@${mailDomain}.`}
            />
            {alias && forwarding.enabled && (
              <p class="notice warn">
                Renaming turns email forwarding off: mail to {alias} stops being forwarded, and you
                turn forwarding on again for the new alias.
              </p>
            )}
            <div class="actions">
              <button class="button" type="submit">
                Save the name
              </button>
            </div>
          </form>
          <form method="post" action="/dashboard/account/forwarding" class="card" novalidate>
            <Csrf token={csrf} />
            <h2>Email forwarding</h2>
            {errors.forwarding && <p class="error">{errors.forwarding}</p>}
            <p class="muted">
              {alias
                ? `Mail sent to ${alias} is forwarded to the address below while forwarding is on.`
                : 'Choose a display name first: forwarding needs an alias.'}
            </p>
            <fieldset>
              <legend class="legend">Forwarding</legend>
              <label class="check">
                <input type="radio" name="enabled" value="true" checked={forwarding.enabled} /> On
              </label>{' '}
              <label class="check">
                <input type="radio" name="enabled" value="false" checked={!forwarding.enabled} />{' '}
                Off
              </label>
            </fieldset>
            <Field
              id="email"
              label="Forward to"
              error={errors.email}
              hint="Needed to turn forwarding on. Never shown on your page."
            >
              <input
                id="email"
                name="email"
                type="email"
                autocomplete="email"
                value={forwarding.email}
                {...described('email', errors.email, 'hint')}
              />
            </Field>
            <div class="actions">
              <button class="button" type="submit">
                Save forwarding
              </button>
            </div>
          </form>
        </div>
        <aside class="card">
          <h2>Your alias</h2>
          <p class="stat-value">{alias ?? 'Not set yet'}</p>
          <p class="stat-note">
            Forwarding is{' '}
            <span class={`pill ${forwarding.enabled ? 'on' : 'off'}`}>
              {forwarding.enabled ? 'on' : 'off'}
            </span>
          </p>
        </aside>
      </div>
    </DashboardLayout>
  );
}
