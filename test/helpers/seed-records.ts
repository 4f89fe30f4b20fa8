import { newRecordId } from '../../server/domain/ids.js';
import { branchOf, seriesOf, statusOf } from '../../server/domain/record-facts.js';
import type { TestServer } from './server.js';

/**
 * Stores records with chosen times through the real storage (its group commit and statistics
 * indexing), as E7 and E8 would have stored them at those times.
 */
export async function storeMetric(
  server: TestServer,
  projectId: string,
  createdAt: number,
  payload: Record<string, unknown>,
): Promise<void> {
  await server.app.storage.records.append({
    kind: 'metric',
    row: {
      id: newRecordId(),
      projectId,
      payload: JSON.stringify(payload),
      createdAt,
      branch: branchOf(payload),
    },
    series: seriesOf(payload),
  });
}

export async function storeEvent(
  server: TestServer,
  projectId: string,
  createdAt: number,
  eventType: string,
  payload: Record<string, unknown> | null,
): Promise<void> {
  await server.app.storage.records.append({
    kind: 'event',
    notification: undefined,
    row: {
      id: newRecordId(),
      projectId,
      eventType,
      description: null,
      payload: payload === null ? null : JSON.stringify(payload),
      color: null,
      createdAt,
      branch: branchOf(payload),
      status: statusOf(payload),
    },
  });
}

/** A reproducible stream of numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Makes the server fold every record into its statistics cells: records are folded at most once
 * a second, by the next commit that stores one, so this waits a second and stores one (in a
 * project of its own, at `after`, a time no earlier than any record stored). Statistics are read
 * from cells and from the records not folded yet; tests check both ways.
 */
export async function foldStatistics(server: TestServer, after: number): Promise<void> {
  const elsewhere = await server.account();
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await storeMetric(server, elsewhere.projectId, after, { fold: 1 });
}
