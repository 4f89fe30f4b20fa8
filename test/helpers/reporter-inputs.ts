import { parseInputs } from '../../reporter/inputs.js';

/** The reporter's inputs as a step gives them: the three required ones, plus `extra`. */
export const reporterInputs = (extra: Record<string, string>) =>
  parseInputs(
    (name) =>
      ({ 'api-key': 'k', 'base-url': 'https://s.example', 'project-id': 'p1', ...extra })[name] ??
      '',
  );
