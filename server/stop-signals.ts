/** The signals that stop the server gracefully (systemd sends SIGTERM, a terminal SIGINT). */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * A second signal this soon after the first is the same request delivered twice: under `npm
 * start`, a terminal's Ctrl-C reaches both npm and the server, and npm forwards it as well.
 */
const SAME_REQUEST_MS = 1_000;

/**
 * Calls `stop` on the first SIGTERM or SIGINT. A later one (past the echo of the first) means the
 * operator will not wait: the process exits at once with code 1.
 */
export function onStopSignal(stop: (signal: NodeJS.Signals) => void): void {
  let first: number | undefined;
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (first === undefined) {
        first = Date.now();
        stop(signal);
      } else if (Date.now() - first > SAME_REQUEST_MS) {
        process.stderr.write(`second ${signal}: exiting now\n`);
        process.exit(1);
      }
    });
  }
}
