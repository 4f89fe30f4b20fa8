/**
 * The controls of a table row that is a form of its own (the verdicts page's series and
 * thresholds): each control names the row's form by id, so a row edits in place; its error
 * stands under it and is tied to it for screen readers.
 */
import type { ComponentChildren } from 'preact';
import { Csrf } from '../form-controls.js';

/** An error beside a control (in a table cell, or a select of a form), tied to it by id. */
export function CellError({ id, error }: { id: string; error: string | undefined }) {
  return error ? (
    <p class="error" id={`${id}-error`}>
      {error}
    </p>
  ) : null;
}

/** The aria attributes of a control whose error is a CellError. */
export const invalid = (id: string, error: string | undefined) => ({
  'aria-invalid': error ? ('true' as const) : undefined,
  'aria-describedby': error ? `${id}-error` : undefined,
});

interface CellProps {
  /** The row's form, which the control belongs to wherever it stands. */
  formId: string;
  name: string;
  label: string;
  error: string | undefined;
}

/** A row's text control in its table cell, with its error under it. */
export function CellInput({
  formId,
  name,
  label,
  error,
  value,
  inputMode,
  maxLength,
  size,
}: CellProps & { value: string; inputMode?: 'decimal'; maxLength?: number; size?: number }) {
  const id = `${formId}-${name}`;
  return (
    <td>
      <input
        type="text"
        inputMode={inputMode}
        form={formId}
        name={name}
        id={id}
        value={value}
        maxLength={maxLength}
        size={size}
        aria-label={label}
        {...invalid(id, error)}
      />
      <CellError id={id} error={error} />
    </td>
  );
}

/** A row's choice in its table cell, with its error under it. */
export function CellSelect({
  formId,
  name,
  label,
  error,
  children,
}: CellProps & { children: ComponentChildren }) {
  const id = `${formId}-${name}`;
  return (
    <td>
      <select form={formId} name={name} id={id} aria-label={label} {...invalid(id, error)}>
        {children}
      </select>
      <CellError id={id} error={error} />
    </td>
  );
}

/** A button of a row: a form of its own that posts `fields` and the CSRF token to `action`. */
export function RowButton(props: {
  action: string;
  csrf: string;
  id?: string;
  class?: string;
  fields: Record<string, string>;
  verb: string;
  /** What the button acts on, for screen readers. */
  what: string;
  danger?: boolean;
}) {
  return (
    <form method="post" action={props.action} id={props.id} class={props.class}>
      <Csrf token={props.csrf} />
      {Object.entries(props.fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button class={props.danger ? 'button danger small' : 'button small'} type="submit">
        {props.verb}
        <span class="sr-only">{` ${props.what}`}</span>
      </button>
    </form>
  );
}
