import { statusClass } from '../../../../domain/record-facts.js';

/** Pill classes by status: green for success, red for failure, grey otherwise. */
const TONE = { success: 'on', failure: 'bad', cancelled: 'off', other: '' } as const;

/**
 * A status as a coloured pill (its word says the same, so the colour is not the only sign),
 * or nothing when there is none.
 */
export function StatusPill({ status }: { status: string | null }) {
  if (status === null) return null;
  const kind = statusClass(status);
  return (
    <span class={`pill status-pill status-${kind} ${TONE[kind]}`.trim()}>
      <span class="dot" aria-hidden="true" />
      {status}
    </span>
  );
}
