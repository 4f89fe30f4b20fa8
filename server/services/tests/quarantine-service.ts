import type {
  QuarantineChange,
  QuarantineList,
  QuarantineTestRequest,
  SetTestSettingsRequest,
  TestSettings,
  UnquarantineTestRequest,
} from '../../../contract/tests/quarantine.js';
import { NotFound } from '../../domain/domain-errors.js';
import type { KeyOwner, Storage } from '../../storage/storage.js';

/** Who asks: a key's owner, or a signed-in owner on the dashboard (every project of theirs). */
type Caller = Pick<KeyOwner, 'accountId' | 'projectIds'>;

import type { ProjectAccess } from '../project-access.js';
import type { TestQueryService } from './test-query-service.js';

/**
 * Quarantine (docs/tests.md): the owner marks a test whose failures must not fail a build that
 * reports with `--quarantine`; the reporters read the list (ingest keys may, to their projects).
 * Only a test the project has results of can be quarantined, so the list always names tests.
 */
export function quarantineService(
  storage: Storage,
  access: ProjectAccess,
  queries: Pick<TestQueryService, 'flakyAtLeast'>,
) {
  /**
   * With a threshold set, the tests flaky at or above it join the list (`automatic`), when the
   * list is read: the reporter reads it once per run, so the list is as fresh as the last run.
   * A test the owner took out of quarantine is taken again only when its runs since then alone
   * reach the threshold (docs/decisions.md).
   */
  async function autoQuarantine(projectId: string): Promise<void> {
    const threshold = await storage.tests.autoQuarantineScore(projectId);
    if (threshold === null) return;
    const listed = new Set((await storage.tests.quarantined(projectId)).map((e) => e.testKey));
    const releases = await storage.tests.releases(projectId);
    for (const { key, score, releasedAt } of await queries.flakyAtLeast(
      projectId,
      threshold,
      releases,
    )) {
      if (listed.has(key)) continue;
      const since =
        releasedAt === undefined
          ? ''
          : ` since it was taken out of quarantine at ${new Date(releasedAt).toISOString()}`;
      await storage.tests.quarantine(projectId, {
        testKey: key,
        reason: `automatic: flaky score ${score} ≥ ${threshold}${since}`,
        createdAt: Date.now(),
        automatic: true,
      });
    }
  }

  async function known(caller: Caller, projectId: string, testKey: string) {
    await access.assertOwn(caller, projectId);
    const test = await storage.tests.findTest(projectId, testKey);
    if (test === undefined) throw new NotFound('test');
    return test;
  }

  return {
    async quarantine(caller: Caller, body: QuarantineTestRequest): Promise<QuarantineChange> {
      const test = await known(caller, body.projectId, body.test);
      const changed = await storage.tests.quarantine(body.projectId, {
        testKey: test.key,
        reason: body.reason,
        createdAt: Date.now(),
        automatic: false,
      });
      return { test: test.key, quarantined: true, changed };
    },

    async unquarantine(caller: Caller, body: UnquarantineTestRequest): Promise<QuarantineChange> {
      const test = await known(caller, body.projectId, body.test);
      // Released: automatic quarantine respects the owner's decision (autoQuarantine).
      const changed = await storage.tests.unquarantine(body.projectId, test.key, Date.now());
      return { test: test.key, quarantined: false, changed };
    },

    async settings(caller: Caller, projectId: string): Promise<TestSettings> {
      await access.assertOwn(caller, projectId);
      return { projectId, autoQuarantineScore: await storage.tests.autoQuarantineScore(projectId) };
    },

    async setSettings(caller: Caller, body: SetTestSettingsRequest): Promise<TestSettings> {
      await access.assertOwn(caller, body.projectId);
      await storage.tests.setAutoQuarantineScore(body.projectId, body.autoQuarantineScore);
      return { projectId: body.projectId, autoQuarantineScore: body.autoQuarantineScore };
    },

    async list(caller: Caller, projectId: string): Promise<QuarantineList> {
      await access.assertOwn(caller, projectId);
      await autoQuarantine(projectId);
      const entries = await storage.tests.quarantined(projectId);
      const tests = new Map<string, Awaited<ReturnType<typeof storage.tests.findTest>>>();
      for (const entry of entries) {
        tests.set(entry.testKey, await storage.tests.findTest(projectId, entry.testKey));
      }
      return {
        projectId,
        tests: entries.flatMap((entry) => {
          const test = tests.get(entry.testKey);
          if (test === undefined) return [];
          return [
            {
              id: test.key,
              suite: test.suite,
              classname: test.classname,
              name: test.name,
              file: test.file,
              reason: entry.reason,
              created_at: new Date(entry.createdAt).toISOString(),
              automatic: entry.automatic,
            },
          ];
        }),
      };
    },
  };
}

export type QuarantineService = ReturnType<typeof quarantineService>;
