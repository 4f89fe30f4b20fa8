import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  formatFigure,
  formatWithUnit,
  unitOf,
} from '../../server/domain/unit-format.js';

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

  it('says durations as people do: ms, seconds, then minutes and seconds, hours and minutes', () => {
    expect(formatDuration(116_000, 'ms')).toBe('1 min 56 s');
    expect(formatDuration(850, 'ms')).toBe('850 ms');
    expect(formatDuration(0.4, 'ms')).toBe('400 µs');
    expect(formatDuration(12_345, 'ms')).toBe('12.3 s');
    expect(formatDuration(59_970, 'ms')).toBe('1 min');
    expect(formatDuration(120, 's')).toBe('2 min');
    expect(formatDuration(3_599.4, 's')).toBe('59 min 59 s');
    expect(formatDuration(3_599.6, 's')).toBe('1 h');
    expect(formatDuration(7_530, 's')).toBe('2 h 6 min');
    expect(formatDuration(1.5, 'min')).toBe('1 min 30 s');
    expect(formatDuration(-116_000, 'ms')).toBe('-1 min 56 s');
    expect(formatDuration(0, 'ms')).toBe('0 s');
    // Any other unit (or none) as formatWithUnit says it.
    expect(formatFigure(116_000, 'ms')).toBe('1 min 56 s');
    expect(formatFigure(532_000, 'bytes')).toBe('532 kB');
    expect(formatFigure(116_000, null)).toBe('116,000');
  });
});
