import { isJsonObject } from '../../../../../contract/json.js';
import type { StoredEvent } from '../../../../../contract/readback.js';

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
const httpUrl = (value: unknown) => {
  const url = text(value);
  return url && /^https?:\/\//.test(url) ? url : undefined;
};

/** Where a commit's page is, under the repository's URL, by the CI that hosts it. */
const COMMIT_PATH: Record<string, string> = {
  github: '/commit/',
  gitea: '/commit/',
  forgejo: '/commit/',
  gitlab: '/-/commit/',
  bitbucket: '/commits/',
};

/**
 * A repository's web address from how CIs name it: an http(s) URL, or git's `git@host:path` (its
 * web page is on the same host), without `.git` and trailing slashes.
 */
function webUrlOf(value: unknown): string | undefined {
  const url = text(value)?.trim();
  if (!url) return undefined;
  const scp = /^[\w.-]+@([\w.-]+):(?!\/\/)(.+)$/.exec(url);
  const web = scp ? `https://${scp[1]}/${scp[2]}` : httpUrl(url);
  return web?.replace(/\.git\/?$/, '').replace(/\/+$/, '');
}

/** The commit path of a repository's host: its provider's, else told by its host name. */
function commitPathOf(repositoryUrl: string, provider: string | undefined): string {
  const host = new URL(repositoryUrl).hostname;
  if (host.includes('gitlab')) return COMMIT_PATH.gitlab as string;
  if (host.includes('bitbucket')) return COMMIT_PATH.bitbucket as string;
  return COMMIT_PATH[provider ?? ''] ?? '/commit/';
}

/**
 * The commit, run and repository of an event, from its payload's `github` object or else its
 * neutral `ci` object (the CLI's, on any CI). The repository's URL is `ci.repository_url` or a
 * `ci.repository` that is one; else, on a CI that hosts the repository too (GitHub, Gitea,
 * Forgejo, GitLab, Bitbucket), the build URL's server and the repository's name.
 */
export function sourceOf(payload: Record<string, unknown>): {
  commit: string | undefined;
  links: [string, string][];
} {
  const github = isJsonObject(payload.github) ? payload.github : undefined;
  const ci = isJsonObject(payload.ci) ? payload.ci : {};
  const sha = text(github?.sha) ?? text(ci.commit);
  const name = text(github?.repository) ?? text(ci.repository);
  const runUrl = httpUrl(github?.run_url) ?? httpUrl(ci.build_url);
  const provider = github ? 'github' : text(ci.provider);
  let repositoryUrl = webUrlOf(ci.repository_url) ?? webUrlOf(ci.repository);
  if (!repositoryUrl && name && runUrl && COMMIT_PATH[provider ?? '']) {
    const server = runUrl.slice(0, runUrl.indexOf(`/${name}/`));
    if (server) repositoryUrl = `${server}/${name}`;
  }
  const links: [string, string][] = [];
  if (sha && repositoryUrl) {
    const path = commitPathOf(repositoryUrl, provider);
    links.push([`commit ${sha.slice(0, 7)}`, `${repositoryUrl}${path}${sha}`]);
  }
  if (runUrl) links.push(['run', runUrl]);
  if (repositoryUrl) links.push(['repository', repositoryUrl]);
  return { commit: sha && !repositoryUrl ? sha.slice(0, 7) : undefined, links };
}

/** The links an event's payload carries: commit, run, repository, pull request, release. */
export function linksOf(event: StoredEvent): {
  commit: string | undefined;
  links: [string, string][];
} {
  const github = isJsonObject(event.payload?.github) ? event.payload.github : {};
  const { commit, links } = sourceOf(event.payload ?? {});
  const pull = isJsonObject(github.pull_request) ? github.pull_request : {};
  const pullUrl = httpUrl(pull.url);
  if (pullUrl) links.push([`pull request #${String(pull.number ?? '')}`, pullUrl]);
  const release = isJsonObject(github.release) ? github.release : {};
  const releaseUrl = httpUrl(release.url);
  if (releaseUrl) links.push([`release ${text(release.tag) ?? ''}`.trim(), releaseUrl]);
  return { commit, links };
}
