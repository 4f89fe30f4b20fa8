import type { Transport } from '../reporter/client.js';
import { MAIN_HELP } from './help.js';
import { type Console, ExitCode, reportCommand } from './report-command.js';
import { VERSION } from './version.js';

/** `ci-stats <command>`: dispatches, returns the exit code. */
export async function main(
  args: string[],
  transport: Transport,
  console: Console,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<{ code: number; abandonedRequests: boolean }> {
  const [command, ...rest] = args;
  const done = (code: number) => ({ code, abandonedRequests: false });
  if (command === '--version' || command === '-v' || command === 'version') {
    console.out(`${VERSION}\n`);
    return done(ExitCode.ok);
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    console.out(MAIN_HELP);
    return done(ExitCode.ok);
  }
  if (command === 'report') return reportCommand(rest, transport, console, env, cwd);
  // Loaded only for an import: a report step compiles none of it (nor node:crypto).
  if (command === 'import') {
    const { importCommand } = await import('./import-command.js');
    return importCommand(rest, transport, console, env);
  }
  console.err(
    `${command === undefined ? 'ci-stats: a command is needed' : `ci-stats: unknown command "${command}"`}\n\n${MAIN_HELP}`,
  );
  return done(ExitCode.usage);
}
