/** Timestamps on the wire and in the database: ISO 8601 UTC with milliseconds and `Z`. */
export const nowIso = (): string => new Date().toISOString();
