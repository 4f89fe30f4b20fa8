import type { Storage } from '../../storage/storage.js';

/**
 * A project's default branch: the one its owner set, else `main`, or `master` when the project
 * has judged records on `master` and none on `main` (docs/verdicts.md).
 */
export async function defaultBranchOf(
  storage: Pick<Storage, 'verdicts'>,
  projectId: string,
  set: string | null,
): Promise<string> {
  if (set !== null) return set;
  const latest = (branch: string) =>
    storage.verdicts.latestOnBranch(projectId, branch, Number.MAX_SAFE_INTEGER);
  if ((await latest('main')) !== undefined) return 'main';
  return (await latest('master')) !== undefined ? 'master' : 'main';
}
