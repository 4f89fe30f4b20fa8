/**
 * A value as people read it with its series' unit: times and sizes scaled to the unit that suits
 * them (`1200` ms is `1.2 s`, `532000` bytes `532 kB`), others with their unit after the number.
 * A key without a declared unit takes the one its name ends with (`duration_ms`, `bundle_bytes`;
 * docs/decisions.md).
 */

/** Time units in seconds, and the ladder a time climbs (each step used from 1 of it up). */
const TIME: Record<string, number> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  ms: 1e-3,
  s: 1,
  sec: 1,
  seconds: 1,
  min: 60,
  h: 3600,
};
const TIME_STEPS: [string, number][] = [
  ['h', 3600],
  ['min', 60],
  ['s', 1],
  ['ms', 1e-3],
  ['µs', 1e-6],
  ['ns', 1e-9],
];

/** Size units in bytes (SI, as `du --si` and browsers' download bars), and their ladder. */
const SIZE: Record<string, number> = {
  B: 1,
  byte: 1,
  bytes: 1,
  kB: 1e3,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
};
const SIZE_STEPS: [string, number][] = [
  ['TB', 1e12],
  ['GB', 1e9],
  ['MB', 1e6],
  ['kB', 1e3],
  ['B', 1],
];

/** The unit a key's name implies by its last `_` part, when none is declared. */
const SUFFIX_UNITS: Record<string, string> = {
  ns: 'ns',
  us: 'us',
  ms: 'ms',
  s: 's',
  sec: 's',
  seconds: 's',
  bytes: 'bytes',
};

/** The declared unit, else the one the key's name ends with; null when neither says. */
export function unitOf(key: string, declared: string | null | undefined): string | null {
  if (declared) return declared;
  const suffix = /[_.]([a-z]+)$/.exec(key)?.[1];
  return (suffix && SUFFIX_UNITS[suffix]) ?? null;
}

const significant = (value: number, digits: number) =>
  value.toLocaleString('en', { maximumSignificantDigits: digits });

function scaled(value: number, base: number, steps: [string, number][]): string {
  const amount = value * base;
  const magnitude = Math.abs(amount);
  const [name, size] =
    steps.find(([, size]) => magnitude >= size) ?? (steps.at(-1) as [string, number]);
  return `${significant(amount / size, 3)} ${name}`;
}

/** `value` with `unit` (null: the number alone, to 6 significant digits). */
export function formatWithUnit(value: number, unit: string | null): string {
  if (unit === null || unit === '') return significant(value, 6);
  if (value === 0) return `0 ${unit}`;
  const time = TIME[unit];
  if (time !== undefined) return scaled(value, time, TIME_STEPS);
  const size = SIZE[unit];
  if (size !== undefined) return scaled(value, size, SIZE_STEPS);
  return `${significant(value, 6)} ${unit}`;
}

/** Whether `unit` is one of time (a figure in it is a duration). */
export function isTimeUnit(unit: string | null): boolean {
  return unit !== null && TIME[unit] !== undefined;
}

/**
 * A duration as people say it: under a second in ms (µs, ns), under a minute in seconds to 3
 * significant digits, then in whole minutes and seconds (`1 min 56 s`), from an hour in hours and
 * whole minutes (`2 h 5 min`). `unit` must be a time unit (isTimeUnit).
 */
export function formatDuration(value: number, unit: string): string {
  const seconds = value * (TIME[unit] ?? 1);
  const magnitude = Math.abs(seconds);
  const sign = seconds < 0 ? '-' : '';
  if (magnitude === 0) return '0 s';
  if (magnitude < 1) return scaled(seconds, 1, TIME_STEPS);
  if (magnitude < 59.95) return `${sign}${significant(magnitude, 3)} s`;
  const parts = (big: number, bigName: string, smallName: string, small: number) => {
    const whole = Math.round(magnitude / small);
    const high = Math.floor(whole / big);
    const low = whole % big;
    return `${sign}${high.toLocaleString('en')} ${bigName}${low === 0 ? '' : ` ${low} ${smallName}`}`;
  };
  return magnitude < 3599.5 ? parts(60, 'min', 's', 1) : parts(60, 'h', 'min', 60);
}

/** A figure with its unit: a duration as formatDuration says it, others as formatWithUnit. */
export function formatFigure(value: number, unit: string | null): string {
  return unit !== null && isTimeUnit(unit)
    ? formatDuration(value, unit)
    : formatWithUnit(value, unit);
}
