import type { ThresholdModel } from './threshold-model.js';

/** A model's fields as a request carries them, not yet checked. */
export interface ThresholdModelInput {
  test?: unknown;
  lower_boundary?: unknown;
  upper_boundary?: unknown;
  min_sample_size?: unknown;
  max_sample_size?: unknown;
  window_seconds?: unknown;
}

export type ModelField = keyof ThresholdModelInput;

/** One broken rule: the field it is about and a sentence naming it, fit for a 400's `error`. */
export interface ModelError {
  field: ModelField;
  message: string;
}

export type ModelValidation =
  | { ok: true; model: ThresholdModel }
  | { ok: false; errors: ModelError[] };

/** Checks a model against the rules of its test (see docs/verdicts-statistics.md). */
export function validateModel(_input: ThresholdModelInput): ModelValidation {
  throw new Error('not implemented yet');
}
