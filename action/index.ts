import {
  error,
  getInput,
  info,
  setFailed,
  setOutput,
  setSecret,
  summary,
  warning,
} from '@actions/core';
import { nodeHttpTransport } from '../reporter/http-transport.js';
import { run } from './step.js';

// The Action's entry: @actions/core speaks the runner's protocol (inputs, workflow commands,
// the output and summary files); the step gets it and the HTTP transport. Named imports, so that
// the bundle keeps only what the step calls (see patches/@actions+core+*.patch for the rest).
void run(
  { getInput, setSecret, setOutput, setFailed, warning, error, info, summary },
  nodeHttpTransport,
);
