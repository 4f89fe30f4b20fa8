import * as core from '@actions/core';
import { actionsHttpTransport } from './http-transport.js';
import { run } from './step.js';

// The Action's entry: the only module that imports @actions/core.
void run(core, actionsHttpTransport);
