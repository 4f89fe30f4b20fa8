import { expect, it } from 'vitest';
import { FormClient } from '../helpers/form-client.js';
import { storeEvent } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Issue 28, rough edge 9: the timeline links an event of any CI to its build (`ci.build_url`),
 * its commit (`ci.commit`) and its repository, wherever the repository's URL is known.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const sha = 'b4e0d3f2a1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6';

/** The timeline's links, newest event first: [label, href] of each. */
async function timelineLinks(): Promise<string[][][]> {
  const browser = new FormClient(server);
  await browser.signIn(me.apiKey);
  const res = await browser.get(`/dashboard/projects/${me.projectId}?range=24h`);
  const timeline = res.body.slice(res.body.indexOf('id="timeline-title"'));
  return [...timeline.matchAll(/<li>([\s\S]*?)<\/li>/g)].map(([, item]) =>
    [...(item as string).matchAll(/<a href="([^"]+)"[^>]*>([^<]+)<\/a>/g)].map(
      ([, href, label]) => [label as string, href as string],
    ),
  );
}

it('links commit, run and repository of any CI that names its repository URL', async () => {
  const now = Date.now();
  const ci = (provider: string, extra: Record<string, unknown>) => ({
    provider,
    commit: sha,
    branch: 'main',
    ...extra,
  });
  await storeEvent(server, me.projectId, now - 4000, 'build', {
    ci: ci('jenkins', {
      repository: 'acme/api',
      repository_url: 'git@git.example.org:acme/api.git',
      build_url: 'https://jenkins.example.org/job/api/41/',
    }),
  });
  await storeEvent(server, me.projectId, now - 3000, 'build', {
    ci: ci('buildkite', {
      repository_url: 'https://gitlab.com/acme/site.git',
      build_url: 'https://buildkite.com/acme/site/builds/9',
    }),
  });
  await storeEvent(server, me.projectId, now - 2000, 'build', {
    ci: ci('circleci', {
      repository: 'https://bitbucket.org/acme/tool',
      build_url: 'https://app.circleci.com/pipelines/bb/acme/tool/3',
    }),
  });
  await storeEvent(server, me.projectId, now - 1000, 'build', {
    ci: ci('drone', { repository: 'acme/lib', build_url: 'javascript:alert(1)' }),
  });
  expect(await timelineLinks()).toEqual([
    // Neither a repository URL nor an http(s) build URL: nothing to link.
    [],
    [
      ['commit b4e0d3f', `https://bitbucket.org/acme/tool/commits/${sha}`],
      ['run', 'https://app.circleci.com/pipelines/bb/acme/tool/3'],
      ['repository', 'https://bitbucket.org/acme/tool'],
    ],
    [
      ['commit b4e0d3f', `https://gitlab.com/acme/site/-/commit/${sha}`],
      ['run', 'https://buildkite.com/acme/site/builds/9'],
      ['repository', 'https://gitlab.com/acme/site'],
    ],
    [
      ['commit b4e0d3f', `https://git.example.org/acme/api/commit/${sha}`],
      ['run', 'https://jenkins.example.org/job/api/41/'],
      ['repository', 'https://git.example.org/acme/api'],
    ],
  ]);
});

it('names the commit without a link when no repository URL is known', async () => {
  await storeEvent(server, me.projectId, Date.now() - 1000, 'build', {
    ci: { provider: 'jenkins', commit: sha, build_url: 'https://jenkins.example.org/job/x/1/' },
  });
  const browser = new FormClient(server);
  await browser.signIn(me.apiKey);
  const res = await browser.get(`/dashboard/projects/${me.projectId}?range=24h`);
  expect(res.body).toContain('<code class="commit">b4e0d3f</code>');
  expect(await timelineLinks()).toEqual([[['run', 'https://jenkins.example.org/job/x/1/']]]);
});
