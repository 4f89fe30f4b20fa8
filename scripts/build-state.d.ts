/** Types of build-state.js, which runs before anything is compiled and so is JavaScript. */
export const BUILT_STAMP: string;
export function staleReason(root: string, entry?: string): string | undefined;
export function markBuilt(root: string, startedAt?: Date): void;
export function buildIfStale(
  root: string,
  options?: { force?: boolean; log?: (line: string) => void },
): boolean;
