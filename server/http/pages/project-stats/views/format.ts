/** Times as the statistics page shows them: UTC, to the minute (the page is the same for all). */
export function formatTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A number for people: up to 4 significant digits, with thousands separators. */
export function formatNumber(value: number): string {
  return Number.isInteger(value)
    ? value.toLocaleString('en')
    : value.toLocaleString('en', { maximumSignificantDigits: 4 });
}
