import { describe, expect, it } from 'vitest';
import { Limits } from '../../contract/limits.js';
import { isPayload, payloadJson, payloadTextProblem } from '../../contract/payload.js';

/**
 * The text stored for a payload is the one its check made only for the payload last checked, asked
 * by identity: any other payload, an equal copy included, is serialised anew (issue 31: one slot
 * instead of a WeakMap). The expected texts are `JSON.stringify`'s, made here.
 */
describe("a payload's stored text", () => {
  it('is its own JSON whichever payload was checked last', () => {
    const first = { duration_ms: 1, branch: 'main' };
    const second = { duration_ms: 2, nested: { a: [1, 'x'] } };
    expect(isPayload(first)).toBe(true);
    expect(isPayload(second)).toBe(true);
    // `first` was checked before `second`: its text is made again, not taken from the slot.
    expect(payloadJson(first)).toBe('{"duration_ms":1,"branch":"main"}');
    expect(payloadJson(second)).toBe('{"duration_ms":2,"nested":{"a":[1,"x"]}}');
    // Never checked, and equal to a checked one: its own text all the same.
    const copy = { duration_ms: 2, nested: { a: [1, 'x'] } };
    expect(payloadJson(copy)).toBe(JSON.stringify(copy));
  });

  it('is never the text of a payload that failed its check', () => {
    const passed = { ok: true };
    const tooLarge = { text: 'x'.repeat(Limits.payloadBytes) };
    expect(isPayload(passed)).toBe(true);
    expect(payloadTextProblem(tooLarge)?.message).toMatch(/bytes of JSON/);
    // The slot still holds `passed`; the refused payload is neither passed nor given its text.
    expect(payloadTextProblem(tooLarge)).not.toBeUndefined();
    expect(payloadJson(passed)).toBe('{"ok":true}');
    expect(payloadJson({ other: 1 })).toBe('{"other":1}');
  });
});
