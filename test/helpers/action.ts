import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './process.js';

export const ACTION_ENTRY = 'dist/index.js';

export interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

/** Reads a GITHUB_OUTPUT file: `name<<delimiter`, value lines, `delimiter`. */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const match = /^([^<]+)<<(.+)$/.exec(lines[i] as string);
    if (!match) continue;
    const [, name, delimiter] = match as unknown as [string, string, string];
    const value: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] as string);
    outputs[name] = value.join('\n');
  }
  return outputs;
}

/** The environment of a step on a runner, for a given event. */
export function runnerEnv(
  event: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: join(import.meta.dirname, '..', 'action', 'fixtures', `${event}.json`),
    GITHUB_REPOSITORY: 'octo-org/web-app',
    GITHUB_SHA: '0a1b2c3d4e5f60718293a4b5c6d7e8f901234567',
    GITHUB_REF: 'refs/heads/main',
    GITHUB_WORKFLOW: 'CI',
    GITHUB_JOB: 'build',
    GITHUB_ACTION: '__ci-stats',
    GITHUB_RUN_ID: String(1_000_000 + Math.floor(Math.random() * 1_000_000)),
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_RUN_NUMBER: '12',
    GITHUB_ACTOR: 'mona',
    GITHUB_SERVER_URL: 'https://github.com',
    ...extra,
  };
}

/** Runs the built Action as the runner does: inputs as INPUT_<NAME>, files for outputs and summary. */
export async function runAction(
  inputs: Record<string, string>,
  env: Record<string, string>,
): Promise<ActionRun> {
  const dir = mkdtempSync(join(tmpdir(), 'ci-stats-action-'));
  try {
    const outputFile = join(dir, 'output');
    const summaryFile = join(dir, 'summary');
    writeFileSync(outputFile, '');
    writeFileSync(summaryFile, '');
    const inputEnv = Object.fromEntries(
      Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]),
    );
    const { code, stdout, stderr } = await run([ACTION_ENTRY], {
      RUNNER_TEMP: dir,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      ...env,
      ...inputEnv,
    });
    return {
      code,
      stdout,
      stderr,
      outputs: parseOutputFile(readFileSync(outputFile, 'utf8')),
      summary: readFileSync(summaryFile, 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The log as people see it: the runner swallows `::add-mask::` commands. */
export function visibleLog(run: ActionRun): string {
  return `${run.stdout}\n${run.stderr}`
    .split('\n')
    .filter((line) => !line.startsWith('::add-mask::'))
    .join('\n');
}
