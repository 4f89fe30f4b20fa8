import { isJsonObject } from '../../contract/json.js';
import type { QuarantinedTest } from '../../contract/tests/quarantine.js';

/**
 * The acknowledgement of a batch of test cases (`{ message, runId, cases }`), checked by hand:
 * the answer is three fields, and zod is not loaded for it.
 */
export function testsAnswer(body: unknown): { message: string; id: string } | undefined {
  if (
    !isJsonObject(body) ||
    typeof body.message !== 'string' ||
    typeof body.runId !== 'string' ||
    typeof body.cases !== 'number'
  ) {
    return undefined;
  }
  return { message: body.message, id: body.runId };
}

/** The quarantine list's tests (`{ projectId, tests }`), those with an id and a reason. */
export function quarantineList(body: unknown): QuarantinedTest[] | undefined {
  if (!isJsonObject(body) || !Array.isArray(body.tests)) return undefined;
  return body.tests.filter(
    (test): test is QuarantinedTest =>
      isJsonObject(test) && typeof test.id === 'string' && typeof test.reason === 'string',
  );
}
