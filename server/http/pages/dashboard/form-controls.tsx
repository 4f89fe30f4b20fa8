import type { ComponentChildren } from 'preact';

/** The hidden field that carries the CSRF token of every state-changing form. */
export const Csrf = ({ token }: { token: string }) => (
  <input type="hidden" name="_csrf" value={token} />
);

interface FieldProps {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: string;
  children: ComponentChildren;
}

/** A labelled field with its hint and its error, tied to the control by aria attributes. */
export function Field({ id, label, error, hint, children }: FieldProps) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** aria attributes of a control inside a Field. */
export function described(id: string, error: string | undefined, hint?: string) {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return {
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': ids || undefined,
  };
}

interface TextFieldProps {
  name: string;
  label: string;
  value: string | null | undefined;
  error?: string | undefined;
  hint?: string;
  type?: 'text' | 'url' | 'email' | 'password';
  maxLength?: number;
  autocomplete?: string;
  required?: boolean;
}

export function TextField({
  name,
  label,
  value,
  error,
  hint,
  type = 'text',
  ...input
}: TextFieldProps) {
  return (
    <Field id={name} label={label} error={error} hint={hint}>
      <input
        id={name}
        name={name}
        // Preact types each input type apart; any of these four takes the same attributes.
        type={type as 'text'}
        value={value ?? ''}
        maxLength={input.maxLength}
        autocomplete={input.autocomplete}
        required={input.required}
        {...described(name, error, hint)}
      />
    </Field>
  );
}

export function TextAreaField({
  name,
  label,
  value,
  error,
  hint,
  maxLength,
}: Omit<TextFieldProps, 'type'>) {
  return (
    <Field id={name} label={label} error={error} hint={hint}>
      <textarea id={name} name={name} maxLength={maxLength} {...described(name, error, hint)}>
        {value ?? ''}
      </textarea>
    </Field>
  );
}

/** A notice at the top of a page: what just happened, or what went wrong. */
export function Notice({
  tone,
  children,
}: {
  tone: 'ok' | 'bad' | 'warn';
  children: ComponentChildren;
}) {
  return (
    <div class={`notice ${tone}`} role={tone === 'bad' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
