import { expect } from 'vitest';

/**
 * A 400 answer of a request that failed its schema, without its `issues`, once they have been
 * checked: at least one, each naming a field (a string path) and why (a message). Tests that
 * compare the verbatim `{ error }` of such answers use this; the issues themselves are tested in
 * hostile-input.test.ts.
 */
export function withoutIssues(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || !('issues' in body)) return body;
  const { issues, ...rest } = body as { issues: unknown };
  expect(issues).toEqual(
    expect.arrayContaining([{ path: expect.any(String), message: expect.any(String) }]),
  );
  for (const issue of issues as unknown[]) {
    expect(issue).toEqual({ path: expect.any(String), message: expect.any(String) });
  }
  return rest;
}
