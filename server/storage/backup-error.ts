/**
 * A backup or restore refused or failed, said in one line for the operator (the admin CLI prints
 * it as its error): the file, what is wrong with it, and what to do. Nothing was replaced.
 */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** A UTC time for file and database names: 2026-11-26T10:15:00.123Z -> 20261126T101500Z. */
export function backupStamp(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}
