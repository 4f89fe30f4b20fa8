import { InputError } from '../../reporter/input-error.js';

export const COMMENT_MODES = ['always', 'on-change', 'on-regression', 'never'] as const;
export type CommentMode = (typeof COMMENT_MODES)[number];

/** The inputs that say where the verdict goes on GitHub (action.yml documents them). */
export interface VerdictInputs {
  /** `github-token`, `${{ github.token }}` by default; empty: nothing is posted. */
  token: string;
  commentOnPr: CommentMode;
  check: boolean;
  failOnRegression: boolean;
  /** A share link of the project, shown instead of its page on the server. */
  shareUrl: string | undefined;
  /**
   * `pull-request-event`: in a workflow_run workflow, the event file of a fork's pull_request
   * run, whose verdict this step posts with the base repository's token (workflow-run.ts).
   */
  pullRequestEvent: string | undefined;
}

function flag(name: string, text: string): boolean {
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  throw new InputError(name, `must be true or false, not "${text}"`);
}

export function parseVerdictInputs(get: (name: string) => string): VerdictInputs {
  const mode = get('comment-on-pr') || 'always';
  if (!(COMMENT_MODES as readonly string[]).includes(mode)) {
    throw new InputError('comment-on-pr', `must be one of ${COMMENT_MODES.join(', ')}`);
  }
  const shareUrl = get('share-url');
  if (shareUrl && !/^https?:\/\//.test(shareUrl)) {
    throw new InputError('share-url', 'must be an http(s) URL');
  }
  return {
    token: get('github-token'),
    commentOnPr: mode as CommentMode,
    check: flag('check', get('check')),
    failOnRegression: flag('fail-on-regression', get('fail-on-regression')),
    shareUrl: shareUrl || undefined,
    pullRequestEvent: get('pull-request-event') || undefined,
  };
}
