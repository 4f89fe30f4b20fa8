import { describe, expect, it } from 'vitest';
import { formatWithUnit, unitOf } from '../../server/domain/unit-format.js';

describe('values with their series unit', () => {
  it('scales times and sizes to the unit that suits them', () => {
    expect(formatWithUnit(1200, 'ms')).toBe('1.2 s');
    expect(formatWithUnit(1234.5, 'ms')).toBe('1.23 s');
    expect(formatWithUnit(90_000, 'ms')).toBe('1.5 min');
    expect(formatWithUnit(7_200, 's')).toBe('2 h');
    expect(formatWithUnit(0.25, 's')).toBe('250 ms');
    expect(formatWithUnit(532_000, 'bytes')).toBe('532 kB');
    expect(formatWithUnit(1_500_000, 'B')).toBe('1.5 MB');
    expect(formatWithUnit(2_048, 'kB')).toBe('2.05 MB');
    expect(formatWithUnit(999, 'B')).toBe('999 B');
  });

  it('puts any other unit after the number, and a number without one alone', () => {
    expect(formatWithUnit(12.5, '%')).toBe('12.5 %');
    expect(formatWithUnit(1234.5, 'ns/op')).toBe('1,234.5 ns/op');
    expect(formatWithUnit(1234.5, null)).toBe('1,234.5');
    expect(formatWithUnit(0, 'ms')).toBe('0 ms');
  });

  it('takes the unit a key ends with when none is declared', () => {
    expect(unitOf('duration_ms', null)).toBe('ms');
    expect(unitOf('bundle_bytes', null)).toBe('bytes');
    expect(unitOf('build.time_s', null)).toBe('s');
    expect(unitOf('duration_ms', 'min')).toBe('min');
    expect(unitOf('tests.failed', null)).toBeNull();
    expect(unitOf('items', null)).toBeNull();
  });
});
