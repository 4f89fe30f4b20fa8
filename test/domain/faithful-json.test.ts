import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bodyIssuesOf, checkFaithful, mayBeUnfaithful } from '../../server/domain/faithful-json.js';

/** The body's issues as the API's parser leaves them: JSON.parse, then the check. */
const issuesOf = (text: string) => {
  const body = JSON.parse(text) as object;
  checkFaithful(text, body);
  return bodyIssuesOf(body) ?? [];
};

describe('the pre-check before a body is walked', () => {
  // Every place JSON lets a number stand, each form of a number past a double's range.
  it.each([
    '{"a":1e400}',
    '{"a": 1e400}',
    '{"a":\n\t-1E+400}',
    '{"a":[1e400]}',
    '{"a":[1, 2.5e400]}',
    '{"a":[1,-0.5e-400]}',
    '{"a":{"b":[[7e0400]]}}',
  ])('lets %s be walked, and the walk finds it', (text) => {
    expect(mayBeUnfaithful(text)).toBe(true);
    const found = issuesOf(text);
    // 5e-400 is an underflow to 0, which JSON.parse keeps as 0: walked, nothing found.
    if (!text.includes('e-400')) expect(found).toHaveLength(1);
  });

  it.each(['{"a":"\\ud800"}', '{"a":9007199254740993}'])('lets %s be walked', (text) => {
    expect(mayBeUnfaithful(text)).toBe(true);
    expect(issuesOf(text)).toHaveLength(1);
  });

  it('does not walk a body for an exponent-like run inside a string (project ids)', () => {
    const ids = [
      '24979f0e-3116-48bf-9692-dfd34bf6c32a',
      'abce+123',
      'x1e400',
      ...Array.from({ length: 200 }, () => randomUUID()),
    ];
    for (const id of ids) {
      const text = JSON.stringify({ projectId: id, payload: { duration_ms: 1234, n: 1.5e-7 } });
      expect(mayBeUnfaithful(text), text).toBe(false);
    }
    // The UUID of the example held `0e-311`, which the check before this one took for a number.
    expect(/[eE][+-]?\d{3}/.test('24979f0e-3116')).toBe(true);
  });
});
