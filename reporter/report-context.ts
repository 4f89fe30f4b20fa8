import { type CiContext, detectCi } from './ci-context.js';
import { type RunContext, readContext } from './run-context.js';

/**
 * Where a report is made: the neutral CI context every payload gets, and on the Action also
 * GitHub's own run context (its `github` object, kept for compatibility).
 */
export interface ReportContext {
  ci: CiContext;
  github?: RunContext;
}

/** The Action's context: GitHub's run, and the neutral facts from the same environment. */
export function readActionContext(
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = () => undefined,
  cwd: string = process.cwd(),
): ReportContext {
  const github = readContext(env, warn);
  const ci = detectCi(env, cwd);
  // The base the server compares a pull request with (GitHub puts it in the event file only).
  const baseSha = github.payload.pull_request?.base?.sha;
  if (ci.facts.pull_request && typeof baseSha === 'string' && baseSha) {
    ci.facts.pull_request.base_sha = baseSha;
  }
  return { github, ci };
}

/** The CLI's context: the neutral facts of whichever CI runs it (or of the local checkout). */
export function readCliContext(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): ReportContext {
  return { ci: detectCi(env, cwd) };
}
