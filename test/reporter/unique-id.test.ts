import { describe, expect, it } from 'vitest';
import { uniqueId } from '../../reporter/unique-id.js';
import { runCli } from '../helpers/cli.js';

describe('uniqueId', () => {
  it('draws 128 bits as 32 hex digits, a new id at every call', () => {
    const ids = Array.from({ length: 100_000 }, uniqueId);
    for (const id of ids.slice(0, 1000)) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws a new id in every process, however alike (Math.random is seeded per process)', async () => {
    // The built CLI, run five times with the same arguments and environment: a local run's
    // Idempotency-Key is `local/event/<execution id>`, and the dry run prints it.
    const env = {
      CI_STATS_API_KEY: 'unique-id-test-key',
      CI_STATS_BASE_URL: 'http://127.0.0.1:9',
      CI_STATS_PROJECT_ID: 'p',
    };
    const runs = await Promise.all(
      Array.from({ length: 5 }, () => runCli(['report', '--event-type', 'x', '--dry-run'], env)),
    );
    const keys = runs.map((run) => /Idempotency-Key (local\/event\/\S+)\)/.exec(run.stdout)?.[1]);
    for (const key of keys) expect(key).toMatch(/^local\/event\/[0-9a-f]{32}$/);
    expect(new Set(keys).size).toBe(5);
  });
});
