import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { seedDurationHistory } from '../helpers/duration-history.js';
import { FakeGitLab, GITLAB_TOKENS, MERGE_REQUEST } from '../helpers/fake-gitlab.js';
import { type ServerProcess, startServerProcess } from '../helpers/process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The built CLI in a GitLab merge-request pipeline, against the real server (SQLite or
 * PostgreSQL) and a fake GitLab API: the server's verdict becomes one note per project on the
 * merge request, edited in place on the next pipeline; a token that cannot write, or none, leaves
 * the verdict in the terminal and the exit code alone.
 */

const API_KEY = 'cli-gitlab-key-0123456789abcdefghijklmnopqrstuvwxyz0';

let database: TestDatabase;
let server: ServerProcess;
let gitlab: FakeGitLab;
let projectId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startServerProcess({ ...database.env, BOOTSTRAP_API_KEY: API_KEY });
  projectId = /project id:\s+(\S+)/.exec(server.output())?.[1] as string;
  gitlab = new FakeGitLab();
  await gitlab.start();
  await seedDurationHistory(server.url, API_KEY, projectId, (i) => ({
    ci: { branch: 'main', commit: `main${i}` },
  }));
});

afterAll(async () => {
  await gitlab.stop();
  await server.stop();
  await database.drop();
});

/** A merge-request pipeline of branch `feature` into main, as GitLab sets its variables. */
const pipeline = (token: string | undefined) => ({
  CI_STATS_API_KEY: API_KEY,
  CI_STATS_BASE_URL: server.url,
  CI_STATS_PROJECT_ID: projectId,
  GITLAB_CI: 'true',
  CI_PROJECT_PATH: 'group/app',
  CI_PIPELINE_ID: '4242',
  CI_JOB_ID: '77',
  CI_COMMIT_SHA: 'feature1',
  CI_MERGE_REQUEST_IID: MERGE_REQUEST.iid,
  CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'feature',
  CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
  CI_PROJECT_ID: MERGE_REQUEST.project,
  CI_API_V4_URL: `${gitlab.origin}/api/v4`,
  ...(token === undefined ? {} : { CI_STATS_GITLAB_TOKEN: token }),
});

const ourNotes = () => gitlab.notes.filter((n) => n.body.includes('ci-stats:verdict'));

describe('ci-stats report on a GitLab merge request', () => {
  it('posts the verdict as one note, then edits that note on the next pipeline', async () => {
    const first = await runCli(
      ['report', '--metrics', '{"duration_ms": 300}'],
      pipeline(GITLAB_TOKENS.api),
    );
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`verdict note created on merge request !${MERGE_REQUEST.iid}`);
    expect(ourNotes()).toHaveLength(1);
    const note = ourNotes()[0];
    expect(note?.body).toContain(
      `<!-- ci-stats:verdict project=${encodeURIComponent(projectId)} -->`,
    );
    expect(note?.body).toContain('❌ 1 regression');
    expect(note?.body).toMatch(/\| `duration_ms` \| ms \| [\d.]+ \| 300 \|/);
    // The token is sent as GitLab wants it and never printed.
    expect(gitlab.writes()[0]?.headers['private-token']).toBe(GITLAB_TOKENS.api);
    expect(first.stdout + first.stderr).not.toContain(GITLAB_TOKENS.api);

    const second = await runCli(
      ['report', '--metrics', '{"duration_ms": 101}'],
      pipeline(GITLAB_TOKENS.api),
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`verdict note updated on merge request !${MERGE_REQUEST.iid}`);
    expect(ourNotes()).toHaveLength(1);
    expect(ourNotes()[0]?.id).toBe(note?.id);
    expect(ourNotes()[0]?.body).toContain('✅ no regression');
    expect(ourNotes()[0]?.body).not.toContain('❌');
    expect(gitlab.writes().map((r) => r.method)).toEqual(['POST', 'PUT']);
    // The notes of people and of GitLab itself are left alone.
    expect(gitlab.notes.slice(0, 2).map((n) => n.body)).toEqual([
      'added 1 commit',
      'Looks good to me',
    ]);
  });

  it('a token that cannot write: one warning, the build not failed, nothing written', async () => {
    const before = JSON.stringify(gitlab.notes);
    const run = await runCli(
      ['report', '--metrics', '{"duration_ms": 300}'],
      pipeline(GITLAB_TOKENS.readOnly),
    );
    expect(run.code).toBe(0);
    expect(run.stderr.trim().split('\n')).toEqual([
      'warning: the verdict was not posted on the merge request: GitLab refused CI_STATS_GITLAB_TOKEN (403): a project access token with the api scope and at least the Reporter role can write notes',
    ]);
    expect(JSON.stringify(gitlab.notes)).toBe(before);
    expect(gitlab.requests.at(-1)?.replied).toBe(403);
  });

  it('without the token GitLab is not called, even with --compare', async () => {
    const requests = gitlab.requests.length;
    const run = await runCli(
      ['report', '--metrics', '{"duration_ms": 300}', '--compare'],
      pipeline(undefined),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('ci-stats verdict for');
    expect(gitlab.requests).toHaveLength(requests);
  });
});
