import {
  CreateThresholdRequest,
  ReevaluateRequest,
  UpdateProjectRequest,
  UpdateSeriesRequest,
  UpdateThresholdRequest,
} from '../../../../contract/verdicts.js';
import { textOf } from './dashboard-pages.js';
import { type FieldErrors, fieldErrors } from './form-errors.js';

/**
 * The "Series and thresholds" forms, read into the API's requests and checked by the API's own
 * schemas (contract/verdicts.ts), so that the page accepts exactly what the API accepts; the
 * model's rules (validateModel) are the service's, as for the API.
 */

export type Form = Record<string, unknown>;
export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

/** The threshold fields a form holds as text, in the order the page shows them. */
export const THRESHOLD_TEXT_FIELDS = [
  'key',
  'branch',
  'test',
  'lower_boundary',
  'upper_boundary',
  'min_sample_size',
  'max_sample_size',
  'window_seconds',
] as const;
const NUMBER_FIELDS = [
  'lower_boundary',
  'upper_boundary',
  'min_sample_size',
  'max_sample_size',
  'window_seconds',
] as const;

/** What a threshold form held, as text (to show it again after a refusal). */
export type ThresholdText = Record<(typeof THRESHOLD_TEXT_FIELDS)[number], string>;

export const thresholdTextOf = (form: Form): ThresholdText =>
  Object.fromEntries(
    THRESHOLD_TEXT_FIELDS.map((field) => [field, textOf(form[field]).trim()]),
  ) as ThresholdText;

const firstField = (path: readonly PropertyKey[]) => {
  const head = path[0];
  return head === undefined ? undefined : String(head);
};

function parsed<T>(
  result: { success: true; data: T } | { success: false; error: { issues: unknown[] } },
  custom: Record<string, string> = {},
): Parsed<T> {
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    errors: fieldErrors(
      result.error.issues as Parameters<typeof fieldErrors>[0],
      firstField,
      custom,
    ),
  };
}

const INSTANT_TEXTS = {
  from: 'Enter a date and time with its zone, e.g. 2026-11-01T00:00:00Z, or leave it empty.',
  to: 'Enter a date and time with its zone after "from", e.g. 2026-12-01T00:00:00Z, or leave it empty.',
};

/**
 * A threshold form's numbers: empty is null (the field's default), anything else must be a
 * number ("1e3" and "0.99" are; "ten" is refused with the field named).
 */
function numbersOf(text: ThresholdText): Parsed<Record<string, number | null>> {
  const numbers: Record<string, number | null> = {};
  const errors: FieldErrors = {};
  for (const field of NUMBER_FIELDS) {
    const value = text[field];
    if (value === '') numbers[field] = null;
    else if (Number.isFinite(Number(value))) numbers[field] = Number(value);
    else errors[field] = 'Enter a number, or leave it empty.';
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: numbers };
}

export function createThresholdOf(
  projectId: string,
  text: ThresholdText,
): Parsed<CreateThresholdRequest> {
  const numbers = numbersOf(text);
  if (!numbers.ok) return numbers;
  return parsed(
    CreateThresholdRequest.safeParse({
      projectId,
      key: text.key,
      branch: text.branch,
      test: text.test,
      ...numbers.value,
    }),
  );
}

export function updateThresholdOf(id: string, text: ThresholdText): Parsed<UpdateThresholdRequest> {
  const numbers = numbersOf(text);
  if (!numbers.ok) return numbers;
  return parsed(
    UpdateThresholdRequest.safeParse({
      id,
      key: text.key,
      branch: text.branch,
      test: text.test,
      ...numbers.value,
    }),
  );
}

/**
 * A series row's form: only what the owner changed is sent (the row carries the values it
 * showed), so saving a direction does not also pin the unit a record declared.
 */
export function updateSeriesOf(projectId: string, form: Form): Parsed<UpdateSeriesRequest> {
  const unit = textOf(form.unit).trim();
  const direction = textOf(form.direction);
  const changed: Record<string, unknown> = {};
  if (unit !== textOf(form.shown_unit)) changed.unit = unit === '' ? null : unit;
  if (direction !== textOf(form.shown_direction)) {
    changed.direction = direction === '' ? null : direction;
  }
  return parsed(UpdateSeriesRequest.safeParse({ projectId, key: textOf(form.key), ...changed }));
}

/**
 * The re-evaluation form: empty fields are left out (every key, branch, time). Its key and
 * branch fields are `only_key` and `only_branch`, apart from the threshold form's on the page.
 */
export const REEVALUATE_FIELDS = {
  key: 'only_key',
  branch: 'only_branch',
  from: 'from',
  to: 'to',
} as const;

export function reevaluateOf(projectId: string, form: Form): Parsed<ReevaluateRequest> {
  const request: Record<string, unknown> = { projectId };
  for (const [field, name] of Object.entries(REEVALUATE_FIELDS)) {
    const value = textOf(form[name]).trim();
    if (value !== '') request[field] = value;
  }
  const result = parsed(ReevaluateRequest.safeParse(request), INSTANT_TEXTS);
  if (result.ok) return result;
  const errors: FieldErrors = {};
  for (const [field, text] of Object.entries(result.errors)) {
    errors[REEVALUATE_FIELDS[field as keyof typeof REEVALUATE_FIELDS] ?? field] = text;
  }
  return { ok: false, errors };
}

/**
 * The project's verdict settings form: an empty default branch is automatic (null); the
 * webhook field is write-only (never shown again), so empty keeps it and a ticked "remove"
 * removes it.
 */
export function updateProjectOf(projectId: string, form: Form): Parsed<UpdateProjectRequest> {
  const branch = textOf(form.default_branch).trim();
  const webhook = textOf(form.chat_webhook).trim();
  const request: Record<string, unknown> = {
    projectId,
    default_branch: branch === '' ? null : branch,
    default_threshold: textOf(form.default_threshold) === 'on',
  };
  if (textOf(form.remove_chat_webhook) === 'on') request.chat_webhook = null;
  else if (webhook !== '') request.chat_webhook = webhook;
  return parsed(UpdateProjectRequest.safeParse(request));
}
