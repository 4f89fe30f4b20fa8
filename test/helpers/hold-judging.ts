import type { TestServer } from './server.js';

/** Holds the judging's lock until the returned function is called. */
export async function holdJudging(server: TestServer): Promise<() => Promise<void>> {
  let release = () => {};
  let taken = () => {};
  const isTaken = new Promise<void>((resolve) => {
    taken = resolve;
  });
  const held = server.app.storage.lock('verdicts', async () => {
    taken();
    await new Promise<void>((resolve) => {
      release = resolve;
    });
  });
  await isTaken;
  return async () => {
    release();
    await held;
  };
}
