// node:fs, not node:fs/promises: the promises module costs start-up time for one append.
import { appendFile, appendFileSync } from 'node:fs';
import { EOL } from 'node:os';
import { uniqueId } from '../reporter/unique-id.js';
import type { Runner } from './step.js';

/**
 * The runner's protocol, as @actions/core speaks it: inputs from INPUT_<NAME>, workflow commands
 * on stdout, outputs and the job summary appended to the files the runner names. These are the
 * few bits the step uses; @actions/core itself imports @actions/http-client (and undici) for its
 * OIDC client, which doubles the step's start-up time for nothing we call.
 */

const escapeData = (text: string) =>
  text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

function command(name: string, message: string): void {
  process.stdout.write(`::${name}::${escapeData(message)}${EOL}`);
}

function setOutput(name: string, value: string): void {
  const file = process.env.GITHUB_OUTPUT;
  if (!file) {
    process.stdout.write(EOL);
    process.stdout.write(`::set-output name=${name}::${escapeData(value)}${EOL}`);
    return;
  }
  // A delimiter no value can contain, as the runner's multiline syntax wants.
  const delimiter = `ghadelimiter_${uniqueId()}`;
  // As @actions/core checks: a value holding the delimiter would end the output early.
  if (value.includes(delimiter)) throw new Error(`Output "${name}" contains its delimiter`);
  appendFileSync(file, `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`, 'utf8');
}

const wrap = (tag: string, content: string) => `<${tag}>${content}</${tag}>`;

function summary(): Runner['summary'] {
  let buffer = '';
  const builder: Runner['summary'] = {
    addHeading(text, level) {
      buffer += wrap(`h${level}`, text) + EOL;
      return builder;
    },
    addTable(rows) {
      const body = rows
        .map((row) => wrap('tr', row.map((c) => wrap(c.header ? 'th' : 'td', c.data)).join('')))
        .join('');
      buffer += wrap('table', body) + EOL;
      return builder;
    },
    addRaw(text, addEOL) {
      buffer += addEOL ? text + EOL : text;
      return builder;
    },
    async write() {
      const file = process.env.GITHUB_STEP_SUMMARY;
      if (!file) throw new Error('GITHUB_STEP_SUMMARY is not set');
      await new Promise<void>((resolve, reject) =>
        appendFile(file, buffer, 'utf8', (error) => (error ? reject(error) : resolve())),
      );
      buffer = '';
    },
  };
  return builder;
}

export const githubRunner: Runner = {
  getInput: (name) => (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim(),
  setSecret: (secret) => command('add-mask', secret),
  setOutput,
  setFailed(message) {
    process.exitCode = 1;
    command('error', message);
  },
  warning: (message) => command('warning', message),
  info: (message) => process.stdout.write(message + EOL),
  summary: summary(),
};
