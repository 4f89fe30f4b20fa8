import { isJsonObject } from '../../contract/json.js';

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
