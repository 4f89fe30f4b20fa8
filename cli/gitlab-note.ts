import type { Transport, TransportResponse } from '../reporter/client.js';
import { answerWithin } from '../reporter/deadline.js';

/**
 * The verdict on a GitLab merge request (issue 27): one note per project, found again by the
 * hidden marker the GitHub comment carries, edited in place on every push instead of a new note
 * per pipeline. It needs a project access token with `api` scope in CI_STATS_GITLAB_TOKEN (GitLab's
 * CI_JOB_TOKEN cannot write notes); without one the verdict stays in the terminal. Nothing here
 * fails the build: every refusal becomes one warning line.
 */

/** GitLab refuses a note longer than this (characters). */
export const GITLAB_NOTE_LIMIT = 1_000_000;
/** Notes read per page, and pages read at most, while looking for the project's note. */
const PER_PAGE = 100;
const MAX_PAGES = 20;
const TIMEOUT_MS = 10_000;
/** A 429's Retry-After is honoured once, up to this long; beyond it the note is given up. */
const MAX_RETRY_AFTER_MS = 60_000;

export interface MergeRequest {
  /** CI_API_V4_URL, e.g. https://gitlab.example.com/api/v4 */
  apiUrl: string;
  /** CI_PROJECT_ID */
  project: string;
  /** CI_MERGE_REQUEST_IID: set only in merge-request pipelines. */
  iid: string;
  token: string;
}

/** The merge request this pipeline runs for, when the token to write on it is given. */
export function mergeRequestOf(env: Record<string, string | undefined>): MergeRequest | undefined {
  const token = env.CI_STATS_GITLAB_TOKEN?.trim();
  const apiUrl = env.CI_API_V4_URL?.trim().replace(/\/+$/, '');
  const project = env.CI_PROJECT_ID?.trim();
  const iid = env.CI_MERGE_REQUEST_IID?.trim();
  if (!token || !apiUrl || !project || !iid) return undefined;
  return { apiUrl, project, iid, token };
}

interface Note {
  id: number;
  body?: string;
  system?: boolean;
}

/** Why GitLab said no, in words a pipeline's reader can act on. */
function refusal(response: TransportResponse): string {
  if (response.status === 401)
    return 'GitLab refused CI_STATS_GITLAB_TOKEN (401: unknown or expired)';
  if (response.status === 403) {
    return 'GitLab refused CI_STATS_GITLAB_TOKEN (403): a project access token with the api scope and at least the Reporter role can write notes';
  }
  if (response.status === 404) return 'GitLab did not find the merge request (404)';
  return `GitLab answered ${response.status}`;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Posts `body` as the project's note on the merge request, or edits the note that carries
 * `marker`. Returns what it did, or undefined after warning why it did nothing.
 */
export async function upsertMergeRequestNote(
  transport: Transport,
  target: MergeRequest,
  marker: string,
  body: string,
  warn: (line: string) => void,
): Promise<'created' | 'updated' | undefined> {
  const notes = `${target.apiUrl}/projects/${encodeURIComponent(target.project)}/merge_requests/${encodeURIComponent(target.iid)}/notes`;
  const headers = { 'private-token': target.token, accept: 'application/json' };
  const call = async (method: string, url: string, payload?: unknown) => {
    const send = () =>
      answerWithin(
        transport.request(
          method,
          url,
          payload === undefined ? undefined : JSON.stringify(payload),
          payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
          TIMEOUT_MS,
        ),
        TIMEOUT_MS,
        () => new Error(`GitLab gave no answer within ${TIMEOUT_MS / 1000} s`),
      );
    const first = await send();
    if (first.status !== 429) return first;
    const seconds = Number(first.headers['retry-after']);
    const wait = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000;
    if (wait > MAX_RETRY_AFTER_MS) return first;
    await delay(wait);
    return send();
  };
  try {
    let existing: Note | undefined;
    for (let page = 1; page <= MAX_PAGES && !existing; page++) {
      const listed = await call(
        'GET',
        `${notes}?per_page=${PER_PAGE}&page=${page}&sort=asc&order_by=created_at`,
      );
      if (listed.status !== 200) {
        warn(`the verdict was not posted on the merge request: ${refusal(listed)}`);
        return undefined;
      }
      const found = JSON.parse(listed.body) as Note[];
      existing = found.find((note) => !note.system && note.body?.includes(marker));
      const next = listed.headers['x-next-page'];
      if (found.length < PER_PAGE || next === '' || next === undefined) break;
    }
    const written = existing
      ? await call('PUT', `${notes}/${existing.id}`, { body })
      : await call('POST', notes, { body });
    if (written.status !== 200 && written.status !== 201) {
      warn(`the verdict was not posted on the merge request: ${refusal(written)}`);
      return undefined;
    }
    return existing ? 'updated' : 'created';
  } catch (error) {
    warn(`the verdict was not posted on the merge request: ${(error as Error).message}`);
    return undefined;
  }
}
