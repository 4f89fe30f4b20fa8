#!/usr/bin/env node
import { nodeHttpTransport } from '../reporter/http-transport.js';
import { main } from './main.js';

// The `ci-stats` command: the process's arguments, environment and streams, handed to main().
const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
// No top-level await: it would make the bundler wrap every module as an async one.
void main(process.argv.slice(2), nodeHttpTransport, {
  out: (text) => process.stdout.write(line(text)),
  err: (text) => process.stderr.write(line(text)),
}).then(({ code, abandonedRequests }) => {
  process.exitCode = code;
  // A request given up at its deadline may hold a socket open; the command is over.
  if (abandonedRequests) process.exit();
});
