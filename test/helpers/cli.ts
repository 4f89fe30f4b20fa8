import { run } from './process.js';

export const CLI_ENTRY = 'dist/cli.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a pipeline would: arguments, and an environment of its own only. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  nodeOptions: string[] = [],
): Promise<CliRun> {
  return run([...nodeOptions, CLI_ENTRY, ...args], env);
}
