import type { CreateApiKeyResponse } from '../../../../../contract/api-keys.js';
import { Limits } from '../../../../../contract/limits.js';
import type { Project } from '../../../../../contract/projects.js';
import type { KeyInfo } from '../../../../storage/storage.js';
import { Csrf, TextField } from '../form-controls.js';
import type { FieldErrors } from '../form-errors.js';
import { DashboardLayout, type LayoutProps } from './dashboard-layout.js';

export interface KeysProps extends Omit<LayoutProps, 'title' | 'section' | 'children'> {
  keys: KeyInfo[];
  projects: Project[];
  /** The key just created: shown this once. */
  created?: CreateApiKeyResponse | undefined;
  errors: FieldErrors;
  submitted?: { label: string; scope: string; projectIds: string[] } | undefined;
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : 'Never');

/** GET /dashboard/keys: the account's keys, a new one, and revocation. */
export function KeysView(props: KeysProps) {
  const { keys, projects, created, errors, submitted, csrf } = props;
  const nameOf = new Map(projects.map((p) => [p.id, p.name]));
  const scope = submitted?.scope ?? 'ingest';
  return (
    <DashboardLayout {...props} title="API keys" section="keys">
      <div class="page-head">
        <div>
          <h1>API keys</h1>
          <p class="lead">
            Give CI an <strong>ingest</strong> key: it can send events and metrics and nothing else.
          </p>
        </div>
      </div>
      {created && (
        <section class="card" aria-labelledby="created-title">
          <h2 id="created-title">Your new key</h2>
          <p>Copy it now into your CI's secret store. It is shown this once and never again.</p>
          <p class="copy-row">
            <input
              class="secret"
              id="new-api-key"
              readonly
              value={created.apiKey}
              aria-label="New API key"
            />
            <button class="button secondary small" type="button" data-copy="new-api-key">
              Copy
            </button>
          </p>
          <p class="stat-note">
            {created.label ? `${created.label} · ` : ''}
            {created.scope === 'ingest' ? 'Ingest only' : 'Full access'}
          </p>
        </section>
      )}
      <section class="card" aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Key</th>
                <th scope="col">Can</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="sr-only">Revoke</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr>
                  <td>{key.label ?? <span class="muted">No label</span>}</td>
                  <td>
                    <code>{`${key.prefix}…`}</code>
                  </td>
                  <td>
                    {key.scope === 'full'
                      ? 'Everything'
                      : key.projectIds
                        ? `Ingest into ${key.projectIds.map((id) => nameOf.get(id) ?? id).join(', ')}`
                        : 'Ingest into every project'}
                  </td>
                  <td class="muted">{day(key.created_at)}</td>
                  <td class="muted">{day(key.last_used_at)}</td>
                  <td>
                    <form method="post" action="/dashboard/keys/revoke" class="inline-form">
                      <Csrf token={csrf} />
                      <input type="hidden" name="keyId" value={key.id} />
                      <button class="button danger small" type="submit">
                        Revoke<span class="sr-only">{` ${key.label ?? key.prefix}`}</span>
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p class="hint">
          Revoking a key takes effect at once, on every request; dashboard sessions opened with it
          end too.
        </p>
      </section>
      <form method="post" action="/dashboard/keys" class="card" novalidate>
        <Csrf token={csrf} />
        <h2>Create a key</h2>
        {errors.form && <p class="error">{errors.form}</p>}
        <TextField
          name="label"
          label="Label"
          value={submitted?.label}
          error={errors.label}
          maxLength={Limits.labelLength}
          hint="What uses it, e.g. GitHub Actions of web-app."
        />
        <fieldset>
          <legend class="legend">It can</legend>
          <label class="check">
            <input type="radio" name="scope" value="ingest" checked={scope === 'ingest'} /> Only
            send events and metrics (for CI)
          </label>
          <br />
          <label class="check">
            <input type="radio" name="scope" value="full" checked={scope === 'full'} /> Everything,
            like the dashboard
          </label>
        </fieldset>
        {projects.length > 0 && (
          <fieldset>
            <legend class="legend">Projects an ingest key may send to</legend>
            {projects.map((project) => (
              <>
                <label class="check">
                  <input
                    type="checkbox"
                    name="projectIds[]"
                    value={project.id}
                    checked={submitted?.projectIds.includes(project.id)}
                  />{' '}
                  {project.name}
                </label>
                <br />
              </>
            ))}
            <p class="hint">None ticked: every project, now and later.</p>
            {errors.projectIds && <p class="error">{errors.projectIds}</p>}
          </fieldset>
        )}
        <div class="actions">
          <button class="button" type="submit">
            Create the key
          </button>
        </div>
      </form>
    </DashboardLayout>
  );
}
