import type * as z from 'zod/mini';

/** The message shown next to each form field that was refused, by field name. */
export type FieldErrors = Record<string, string>;

/** A zod issue in words a person understands. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'too_big':
      return issue.origin === 'array'
        ? `At most ${issue.maximum} items.`
        : `At most ${issue.maximum} characters.`;
    case 'too_small':
      return issue.origin === 'array' ? 'Choose at least one.' : 'Required.';
    case 'invalid_format':
      return issue.format === 'email'
        ? 'Enter a valid email address.'
        : 'This format is not accepted.';
    case 'invalid_value':
      return 'Choose one of the options.';
    case 'invalid_type':
      return 'Required.';
    default:
      return 'This value is not accepted.';
  }
}

/**
 * The messages of a failed validation, per form field: `fieldOf` names the field an issue's path
 * belongs to (or undefined for the form as a whole), `custom` overrides the message of a field.
 * The first problem of each field is shown.
 */
export function fieldErrors(
  issues: readonly z.core.$ZodIssue[],
  fieldOf: (path: readonly PropertyKey[]) => string | undefined = (path) =>
    path.join('.') || undefined,
  custom: Record<string, string> = {},
): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const field = fieldOf(issue.path) ?? 'form';
    errors[field] ??= custom[field] ?? issueMessage(issue);
  }
  return errors;
}
