import * as z from 'zod/mini';
import { requiredText } from '../fields.js';
import { Limits } from '../limits.js';
import { namingErrorText } from '../verdicts.js';
import { TestLimits } from './test-limits.js';

const projectId = requiredText(Limits.projectIdLength);
/** A test's id, as get-tests and get-test give it. */
const test = requiredText(64);

/** POST /stats/quarantine-test: the owner quarantines a test (its id from get-tests). */
export const QuarantineTestRequest = z.strictObject({
  projectId,
  test,
  reason: requiredText(TestLimits.reasonLength),
});
export type QuarantineTestRequest = z.infer<typeof QuarantineTestRequest>;

/** POST /stats/unquarantine-test: the owner takes a test out of quarantine. */
export const UnquarantineTestRequest = z.strictObject({ projectId, test });
export type UnquarantineTestRequest = z.infer<typeof UnquarantineTestRequest>;

/** The flaky score is a weighted mean of at most 2 per run (docs/tests.md). */
export const MAX_FLAKY_SCORE = 2;

/**
 * POST /stats/set-test-settings: the flaky score at or above which tests are quarantined
 * automatically when the list is read (null: off, the default).
 */
export const SetTestSettingsRequest = z.strictObject({
  projectId,
  autoQuarantineScore: z.nullable(z.number().check(z.gt(0), z.lte(MAX_FLAKY_SCORE))),
});
export type SetTestSettingsRequest = z.infer<typeof SetTestSettingsRequest>;

/** 200 body of set-test-settings and get-test-settings. */
export interface TestSettings {
  projectId: string;
  autoQuarantineScore: number | null;
}

/** A bad field is named: the project id first, then the first field at fault. */
export const quarantineErrorText = namingErrorText([
  'projectId',
  'test',
  'reason',
  'autoQuarantineScore',
]);

/** 200 body of quarantine-test and unquarantine-test. */
export interface QuarantineChange {
  test: string;
  quarantined: boolean;
  /** False when the test already was (quarantine-test) or was not (unquarantine-test). */
  changed: boolean;
}

/** One quarantined test, with its identity so a reporter can match a run's failures. */
export interface QuarantinedTest {
  id: string;
  suite: string;
  classname: string | null;
  name: string;
  file: string | null;
  reason: string;
  created_at: string;
  automatic: boolean;
}

/** 200 body of GET /stats/get-quarantine. */
export interface QuarantineList {
  projectId: string;
  tests: QuarantinedTest[];
}
