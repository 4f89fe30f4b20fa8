import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface LocalGit {
  commit: string | null;
  branch: string | null;
  remoteUrl: string | undefined;
}

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** The checkout's git directory and its common directory (they differ in a worktree). */
function gitDirs(cwd: string): { git: string; common: string } | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    if (existsSync(dotGit)) {
      let git = dotGit;
      if (statSync(dotGit).isFile()) {
        const pointer = /^gitdir:\s*(.+)$/m.exec(read(dotGit) ?? '')?.[1]?.trim();
        if (!pointer) return undefined;
        git = resolve(dir, pointer);
      }
      const common = read(join(git, 'commondir'))?.trim();
      return { git, common: common ? resolve(git, common) : git };
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function resolveRef(common: string, git: string, ref: string): string | null {
  for (const base of [git, common]) {
    const loose = read(join(base, ref))?.trim();
    if (loose && /^[0-9a-f]{40,64}$/.test(loose)) return loose;
  }
  for (const line of (read(join(common, 'packed-refs')) ?? '').split('\n')) {
    const [sha, name] = line.split(' ');
    if (name === ref && sha) return sha;
  }
  return null;
}

/**
 * Commit, branch and origin URL of the git checkout around `cwd`, read from its files: no git
 * binary needed, and no process spawned (a local run costs nothing more than a CI run).
 */
export function readLocalGit(cwd: string): LocalGit | undefined {
  const dirs = gitDirs(cwd);
  if (!dirs) return undefined;
  const head = read(join(dirs.git, 'HEAD'))?.trim() ?? '';
  const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
  const config = read(join(dirs.common, 'config')) ?? '';
  const origin = /\[remote "origin"\][^[]*?^\s*url\s*=\s*(.+)$/m.exec(config)?.[1]?.trim();
  return {
    commit: ref
      ? resolveRef(dirs.common, dirs.git, ref)
      : /^[0-9a-f]{40,64}$/.test(head)
        ? head
        : null,
    branch: ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null,
    remoteUrl: origin,
  };
}
