import { nodeHttpTransport } from '../reporter/http-transport.js';
import { githubRunner } from './runner.js';
import { run } from './step.js';

// The Action's entry: the runner's protocol and the HTTP transport, handed to the step.
void run(githubRunner, nodeHttpTransport);
