#!/usr/bin/env node
import { nodeHttpTransport } from '../reporter/http-transport.js';
import { main } from './main.js';

// The `ci-stats` command: the process's arguments, environment and streams, handed to main().
// A reader that stops early (`ci-stats report --dry-run | head`) closes the pipe: what is left
// to print is dropped, as Unix tools do, and the run ends as it would have (its exit code, no
// stack trace), since a request under way must not be cut off by where its output goes.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
// No top-level await: it would make the bundler wrap every module as an async one.
void main(process.argv.slice(2), nodeHttpTransport, {
  out: (text) => process.stdout.write(line(text)),
  err: (text) => process.stderr.write(line(text)),
  // Colour only for a person at a terminal; NO_COLOR (no-color.org) turns it off.
  colour: process.stdout.isTTY === true && !process.env.NO_COLOR,
}).then(({ code, abandonedRequests }) => {
  process.exitCode = code;
  // A request given up at its deadline may hold a socket open; the command is over.
  if (abandonedRequests) process.exit();
});
