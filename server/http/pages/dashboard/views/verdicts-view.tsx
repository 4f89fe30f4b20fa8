import type { Project } from '../../../../../contract/projects.js';
import type { MetricKeyInfo } from '../../../../../contract/stats-queries.js';
import {
  type Alert,
  NAME_LENGTH,
  type ProjectSettings,
  type Threshold,
  UNIT_LENGTH,
} from '../../../../../contract/verdicts.js';
import { THRESHOLD_TESTS } from '../../../../domain/verdicts/threshold-model.js';
import { Csrf, TextField } from '../form-controls.js';
import type { FieldErrors } from '../form-errors.js';
import { DashboardLayout, type LayoutProps } from './dashboard-layout.js';
import { CellError, CellInput, CellSelect, invalid, RowButton } from './row-controls.js';
import { SimpleTable } from './simple-table.js';

/** A form the page refused: which one, what it held, and why (beside each field). */
export interface Refusal {
  form: 'series' | 'create-threshold' | 'threshold' | 'alert' | 'reevaluate' | 'settings';
  /** The series key, threshold id or alert id the form was about. */
  key?: string;
  text?: Record<string, string>;
  errors: FieldErrors;
}

export interface VerdictsProps extends Omit<LayoutProps, 'title' | 'section' | 'children'> {
  project: Project;
  keys: MetricKeyInfo[];
  moreKeys: boolean;
  thresholds: Threshold[];
  settings: ProjectSettings;
  active: Alert[];
  dismissed: Alert[];
  refusal?: Refusal | undefined;
}

const NUMBER_COLUMNS = [
  ['lower_boundary', 'Lower boundary'],
  ['upper_boundary', 'Upper boundary'],
  ['min_sample_size', 'Min sample'],
  ['max_sample_size', 'Max sample'],
  ['window_seconds', 'Window (s)'],
] as const;

const shown = (value: number | null) => (value === null ? '' : String(value));
const number = (value: number | null) =>
  value === null ? '—' : Number.isInteger(value) ? String(value) : value.toPrecision(6);

/** The key (exact or a glob) and branch fields of a form, named `<prefix>key`, `<prefix>branch`. */
function KeyAndBranch(props: {
  prefix: string;
  text: Record<string, string>;
  errors: FieldErrors;
  branch: string | undefined;
  branchHint?: string;
}) {
  const { prefix, text, errors } = props;
  return (
    <>
      <TextField
        name={`${prefix}key`}
        label="Key"
        value={text[`${prefix}key`]}
        error={errors[`${prefix}key`]}
        maxLength={NAME_LENGTH}
        hint="An exact key, or a glob such as bench/*."
      />
      <TextField
        name={`${prefix}branch`}
        label="Branch"
        value={props.branch}
        error={errors[`${prefix}branch`]}
        maxLength={NAME_LENGTH}
        hint={props.branchHint}
      />
    </>
  );
}

/** GET /dashboard/projects/<id>/series: "Series and thresholds" of one project. */
export function VerdictsView(props: VerdictsProps) {
  const { project, keys, moreKeys, thresholds, settings, active, dismissed, refusal, csrf } = props;
  const base = `/dashboard/projects/${encodeURIComponent(project.id)}/series`;
  const refused = (form: Refusal['form'], key?: string) =>
    refusal && refusal.form === form && (key === undefined || refusal.key === key)
      ? refusal
      : undefined;
  return (
    <DashboardLayout
      {...props}
      title={`Series and thresholds · ${project.name}`}
      section="projects"
    >
      <div class="page-head">
        <div>
          <h1>Series and thresholds</h1>
          <p class="lead">
            What each series of{' '}
            <a href={`/dashboard/projects/${encodeURIComponent(project.id)}`}>{project.name}</a>{' '}
            measures, the thresholds that judge new values, and the regressions they found.
          </p>
        </div>
      </div>
      {refusal && (
        <div class="notice bad" role="alert">
          Nothing was changed: see the reason below.
        </div>
      )}

      <section class="card" aria-labelledby="series-title">
        <h2 id="series-title">Series</h2>
        <p class="hint">
          A direction says which way is better: <strong>lower</strong> (durations, sizes) or{' '}
          <strong>higher</strong> (throughput, coverage). A series without one gets no regression
          verdict. What you set here is kept: records no longer change it.
        </p>
        {refused('series') && !keys.some((k) => k.key === refusal?.key) && (
          <p class="error">{Object.values(refusal?.errors ?? {})[0]}</p>
        )}
        <SimpleTable columns={['Series', 'Unit', 'Direction', 'Save']} empty="No series yet.">
          {keys.map((entry, i) => {
            const mine = refused('series', entry.key);
            const formId = `series-${i}`;
            const unit = mine?.text?.unit ?? entry.unit ?? '';
            const direction = mine?.text?.direction ?? entry.direction ?? '';
            return (
              <tr>
                <td>
                  <code>{entry.key}</code>
                </td>
                <CellInput
                  formId={formId}
                  name="unit"
                  value={unit}
                  maxLength={UNIT_LENGTH}
                  label={`Unit of ${entry.key}`}
                  error={mine?.errors.unit}
                />
                <CellSelect
                  formId={formId}
                  name="direction"
                  label={`Direction of ${entry.key}`}
                  error={mine?.errors.direction}
                >
                  <option value="" selected={direction === ''}>
                    Unknown
                  </option>
                  <option value="lower" selected={direction === 'lower'}>
                    Lower is better
                  </option>
                  <option value="higher" selected={direction === 'higher'}>
                    Higher is better
                  </option>
                </CellSelect>
                <td>
                  <RowButton
                    action={base}
                    csrf={csrf}
                    id={formId}
                    class="inline-form"
                    fields={{
                      key: entry.key,
                      shown_unit: entry.unit ?? '',
                      shown_direction: entry.direction ?? '',
                    }}
                    verb="Save"
                    what={entry.key}
                  />
                  {mine?.errors.form && <p class="error">{mine.errors.form}</p>}
                </td>
              </tr>
            );
          })}
        </SimpleTable>
        {moreKeys && (
          <p class="hint">
            The first {keys.length} series are listed; set the others with{' '}
            <code>POST /stats/update-series</code>.
          </p>
        )}
      </section>

      <section class="card" aria-labelledby="thresholds-title">
        <h2 id="thresholds-title">Thresholds</h2>
        <p class="hint">
          A key is an exact key or a glob (<code>bench/*</code>); a branch is a name or{' '}
          <code>*</code>. The most specific match judges a value. Without one, a series with a
          direction gets the default: <code>t_test</code> at 0.99 on its worse side, 8 to 64 values
          {settings.default_threshold ? '' : ' (switched off for this project)'}. Empty numbers take
          the test's defaults. Changes judge the values stored from now on; re-evaluate to judge
          stored ones again.
        </p>
        {refusal?.form === 'threshold' && !thresholds.some((t) => t.id === refusal.key) && (
          <p class="error">{refusal.errors.form}</p>
        )}
        <SimpleTable
          columns={['Key', 'Branch', 'Test', ...NUMBER_COLUMNS.map(([, label]) => label), '']}
          empty="No thresholds: the default judges every series with a direction."
        >
          {thresholds.map((t) => {
            const mine = refused('threshold', t.id);
            const formId = `threshold-${t.id}`;
            const value = (field: string, stored: string) => mine?.text?.[field] ?? stored;
            const what = `threshold ${t.key} on ${t.branch}`;
            const cell = (field: string, label: string) => ({
              formId,
              name: field,
              label: `${label} of ${what}`,
              error: mine?.errors[field],
            });
            const test = value('test', t.test);
            return (
              <tr>
                <CellInput
                  {...cell('key', 'Key')}
                  value={value('key', t.key)}
                  maxLength={NAME_LENGTH}
                />
                <CellInput
                  {...cell('branch', 'Branch')}
                  value={value('branch', t.branch)}
                  maxLength={NAME_LENGTH}
                />
                <CellSelect {...cell('test', 'Test')}>
                  {THRESHOLD_TESTS.map((name) => (
                    <option value={name} selected={name === test}>
                      {name}
                    </option>
                  ))}
                </CellSelect>
                {NUMBER_COLUMNS.map(([field, label]) => (
                  <CellInput
                    {...cell(field, label)}
                    inputMode="decimal"
                    value={value(field, shown(t[field]))}
                    size={6}
                  />
                ))}
                <td>
                  <RowButton
                    action={`${base}/thresholds/update`}
                    csrf={csrf}
                    id={formId}
                    fields={{ id: t.id }}
                    verb="Save"
                    what={what}
                  />
                  <RowButton
                    action={`${base}/thresholds/delete`}
                    csrf={csrf}
                    class="inline-form"
                    fields={{ id: t.id }}
                    verb="Delete"
                    what={what}
                    danger
                  />
                  {mine?.errors.form && <p class="error">{mine.errors.form}</p>}
                </td>
              </tr>
            );
          })}
        </SimpleTable>
      </section>

      <CreateThreshold base={base} csrf={csrf} refusal={refused('create-threshold')} />

      <section class="card" aria-labelledby="alerts-title">
        <h2 id="alerts-title">Active alerts</h2>
        {refused('alert')?.errors.form && <p class="error">{refusal?.errors.form}</p>}
        <AlertTable alerts={active} base={base} csrf={csrf} action="dismiss" />
        <h3>Dismissed alerts</h3>
        <AlertTable alerts={dismissed} base={base} csrf={csrf} action="reactivate" />
      </section>

      <Settings base={base} csrf={csrf} settings={settings} refusal={refused('settings')} />

      <Reevaluate
        base={base}
        csrf={csrf}
        queued={settings.reevaluations_queued}
        refusal={refused('reevaluate')}
      />
    </DashboardLayout>
  );
}

function CreateThreshold({
  base,
  csrf,
  refusal,
}: {
  base: string;
  csrf: string;
  refusal: Refusal | undefined;
}) {
  const text = refusal?.text ?? {};
  const errors = refusal?.errors ?? {};
  const test = text.test ?? 't_test';
  return (
    <form method="post" action={`${base}/thresholds`} class="card" novalidate>
      <Csrf token={csrf} />
      <h2>New threshold</h2>
      {errors.form && <p class="error">{errors.form}</p>}
      <div class="field-grid">
        <KeyAndBranch
          prefix=""
          text={text}
          errors={errors}
          branch={text.branch ?? '*'}
          branchHint="A branch name, or * for every branch (a pull request is judged by its target's)."
        />
        <div class="field">
          <label for="test">Test</label>
          <select id="test" name="test" {...invalid('test', errors.test)}>
            {THRESHOLD_TESTS.map((name) => (
              <option value={name} selected={name === test}>
                {name}
              </option>
            ))}
          </select>
          <CellError id="test" error={errors.test} />
        </div>
        {NUMBER_COLUMNS.map(([field, label]) => (
          <TextField
            name={field}
            label={label}
            value={text[field]}
            error={errors[field]}
            hint={NUMBER_HINTS[field]}
          />
        ))}
      </div>
      <div class="actions">
        <button class="button" type="submit">
          Create the threshold
        </button>
      </div>
    </form>
  );
}

const NUMBER_HINTS: Record<(typeof NUMBER_COLUMNS)[number][0], string> = {
  lower_boundary:
    'A probability in [0.5, 1) for z_score, t_test and log_normal; a fraction or multiple for the others; the limit itself for static. Empty: no lower limit.',
  upper_boundary: 'As the lower one, for the upper side. Empty: no upper limit.',
  min_sample_size: "Fewer baseline values: no verdict. Empty: the test's default.",
  max_sample_size: 'Only the newest this many values. Empty: 64.',
  window_seconds: 'Only values this recent. Empty: no cut.',
};

function AlertTable({
  alerts,
  base,
  csrf,
  action,
}: {
  alerts: Alert[];
  base: string;
  csrf: string;
  action: 'dismiss' | 'reactivate';
}) {
  const verb = action === 'dismiss' ? 'Dismiss' : 'Re-activate';
  return (
    <SimpleTable
      columns={['Series', 'Branch', 'Commit', 'Value', 'Baseline', 'Limit', 'Test', 'When', '']}
      empty={action === 'dismiss' ? 'No active alerts.' : 'No dismissed alerts.'}
    >
      {alerts.map((a) => (
        <tr>
          <td>
            <code>{a.key}</code>
          </td>
          <td>{a.branch ?? <span class="muted">none</span>}</td>
          <td>{a.commit ? <code>{a.commit.slice(0, 12)}</code> : <span class="muted">—</span>}</td>
          <td>{number(a.value)}</td>
          <td>{number(a.baseline)}</td>
          <td>{`${number(a.limit)} (${a.side})`}</td>
          <td>{a.test}</td>
          <td class="muted">{a.created_at.slice(0, 16).replace('T', ' ')}</td>
          <td>
            <RowButton
              action={`${base}/alerts/${action}`}
              csrf={csrf}
              class="inline-form"
              fields={{ id: a.id }}
              verb={verb}
              what={`the alert of ${a.key} at ${a.commit ?? a.record_id}`}
            />
          </td>
        </tr>
      ))}
    </SimpleTable>
  );
}

function Settings({
  base,
  csrf,
  settings,
  refusal,
}: {
  base: string;
  csrf: string;
  settings: ProjectSettings;
  refusal: Refusal | undefined;
}) {
  const errors = refusal?.errors ?? {};
  const branch =
    refusal?.text?.default_branch ?? (settings.default_branch_set ? settings.default_branch : '');
  return (
    <form method="post" action={`${base}/settings`} class="card" novalidate>
      <Csrf token={csrf} />
      <h2>Project settings</h2>
      {errors.form && <p class="error">{errors.form}</p>}
      <TextField
        name="default_branch"
        label="Default branch"
        value={branch}
        error={errors.default_branch}
        maxLength={NAME_LENGTH}
        hint={`Its values judge themselves; its alerts are announced; its change points are found. Empty: automatic (now ${settings.default_branch}).`}
      />
      <fieldset>
        <label class="check">
          <input
            type="checkbox"
            name="default_threshold"
            value="on"
            checked={settings.default_threshold}
          />{' '}
          Judge series without a threshold of their own by the default t_test
        </label>
      </fieldset>
      <TextField
        name="chat_webhook"
        label="Alert webhook (Discord)"
        value=""
        type="url"
        error={errors.chat_webhook}
        hint={
          settings.chat_webhook
            ? 'One is set (it is never shown again). Enter another to replace it.'
            : "None set. The default branch's regressions are announced here."
        }
      />
      {settings.chat_webhook && (
        <fieldset>
          <label class="check">
            <input type="checkbox" name="remove_chat_webhook" value="on" /> Remove the webhook
          </label>
        </fieldset>
      )}
      <div class="actions">
        <button class="button" type="submit">
          Save the settings
        </button>
      </div>
    </form>
  );
}

function Reevaluate({
  base,
  csrf,
  queued,
  refusal,
}: {
  base: string;
  csrf: string;
  queued: number;
  refusal: Refusal | undefined;
}) {
  const text = refusal?.text ?? {};
  const errors = refusal?.errors ?? {};
  return (
    <form method="post" action={`${base}/reevaluate`} class="card" novalidate>
      <Csrf token={csrf} />
      <h2>Re-evaluate</h2>
      <p class="hint">
        Verdicts are kept as they were judged. Re-evaluating judges stored values again under
        today's thresholds and directions, in the background (at most 10,000 records a time, the
        oldest first): their verdicts are replaced, and their alerts follow (a value no longer a
        regression loses its alert). Leave a field empty for all.
      </p>
      {queued > 0 && (
        <p class="notice warn" role="status">
          {queued === 1
            ? 'A re-evaluation is under way.'
            : `${queued} re-evaluations are under way.`}
        </p>
      )}
      {errors.form && <p class="error">{errors.form}</p>}
      <div class="field-grid">
        <KeyAndBranch prefix="only_" text={text} errors={errors} branch={text.only_branch} />
        <TextField
          name="from"
          label="Stored from"
          value={text.from}
          error={errors.from}
          hint="e.g. 2026-11-01T00:00:00Z"
        />
        <TextField
          name="to"
          label="Stored before"
          value={text.to}
          error={errors.to}
          hint="e.g. 2026-12-01T00:00:00Z"
        />
      </div>
      <div class="actions">
        <button class="button" type="submit">
          Re-evaluate
        </button>
      </div>
    </form>
  );
}
