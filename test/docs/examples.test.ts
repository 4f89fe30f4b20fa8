import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { CLI_ENTRY } from '../helpers/cli.js';
import { runCommand } from '../helpers/process.js';
import { ADMIN_TOKEN, testConfig } from '../helpers/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { type Block, markdownFiles, parseMarkdown } from './markdown-files.js';

/**
 * Every block of the documentation marked `<!-- example -->` runs against a real server (on each
 * backend): a ```sh block with bash, its `# ` lines the output it must print; an ```http block is
 * a request and the answer it must get. docs/contributing.md describes the format.
 */

const MARKER = '<!-- example -->';
const examples: Block[] = markdownFiles()
  .flatMap((file) => parseMarkdown(file).blocks)
  .filter((block) => block.marker === MARKER);

let database: TestDatabase;
let app: FastifyInstance;
let origin: string;
let bin: string;
let vars: Record<string, string>;

beforeAll(async () => {
  database = await createTestDatabase();
  app = await buildApp(testConfig(database));
  origin = (await app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
  const admin = (url: string, body: unknown) =>
    app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const account = (await admin('/admin/accounts', { label: 'docs' })).json();
  const project = (
    await admin(`/admin/accounts/${account.accountId}/projects`, { name: 'web' })
  ).json();
  vars = { KEY: account.apiKey, ACCOUNT: account.accountId, PROJECT: project.id, ADMIN_TOKEN };
  // `ci-stats` on the PATH is the CLI of this checkout, as a user's install would be.
  bin = join(database.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'ci-stats'),
    `#!/bin/sh\nexec "${process.execPath}" "${resolve(CLI_ENTRY)}" "$@"\n`,
  );
  chmodSync(join(bin, 'ci-stats'), 0o755);
});
afterAll(async () => {
  await app?.close();
  await database?.drop();
});

/** `localhost:3000` (the default address the docs use) is this test's server. */
const local = (text: string) =>
  text.replace(/https?:\/\/(localhost|127\.0\.0\.1):3000|\b(localhost|127\.0\.0\.1):3000/g, origin);

const substitute = (text: string) =>
  text.replace(
    /\$(KEY|PROJECT|ACCOUNT|ADMIN_TOKEN)\b/g,
    (_m, name: string) => vars[name] as string,
  );

/** A text with `…` for what varies: the rest must match exactly. */
function pattern(text: string): RegExp {
  const parts = text.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`);
}

/** `expected` as the docs write it: "…" is any value, strings with … are patterns. */
function matches(expected: unknown, actual: unknown): boolean {
  if (expected === '…') return true;
  if (typeof expected === 'string') {
    return typeof actual === 'string' && pattern(expected).test(actual);
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return false;
    const open = expected.at(-1) === '…';
    const items = open ? expected.slice(0, -1) : expected;
    if (open ? actual.length < items.length : actual.length !== items.length) return false;
    return items.every((item, i) => matches(item, actual[i]));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const keys = Object.keys(expected).filter((key) => key !== '…');
    if (!('…' in expected) && Object.keys(actual).length !== keys.length) return false;
    return keys.every((key) =>
      matches((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key]),
    );
  }
  return Object.is(expected, actual);
}

async function runShell(block: Block) {
  const { code, stdout, stderr } = await runCommand(
    'bash',
    ['-euo', 'pipefail', '-c', local(block.content)],
    {
      ...vars,
      ...database.env,
      PATH: `${bin}:${process.env.PATH}`,
      HOME: database.dir,
      LOG_LEVEL: 'silent',
    },
  );
  expect(code, stderr).toBe(0);
  const expected = block.content
    .split('\n')
    .filter((line) => line.startsWith('# '))
    .map((line) => substitute(line.slice(2)));
  if (expected.length === 0) return;
  const lines = stdout.trimEnd().split('\n');
  expect(lines.length, stdout).toBe(expected.length);
  expected.forEach((line, i) => {
    expect(lines[i], `output line ${i + 1}`).toMatch(pattern(line));
  });
}

async function runHttp(block: Block) {
  const text = substitute(block.content);
  const split = text.search(/^HTTP\/1\.1 \d{3}/m);
  expect(split, 'an http example shows the answer after the request').toBeGreaterThan(0);
  const [head = '', ...requestBody] = text.slice(0, split).trim().split(/\n\n/);
  const [requestLine = '', ...requestHeaders] = head.split('\n');
  const [method, path] = requestLine.split(' ') as [string, string];
  const [responseHead = '', ...responseBody] = text.slice(split).trim().split(/\n\n/);
  const [statusLine = '', ...responseHeaders] = responseHead.split('\n');
  const headers = Object.fromEntries(
    requestHeaders.map((line) => line.split(/:\s*/, 2) as [string, string]),
  );
  const body = requestBody.join('\n\n').trim();
  const res = await fetch(`${origin}${path}`, {
    method,
    headers,
    ...(body ? { body: JSON.stringify(JSON.parse(body)) } : {}),
  });
  const answer = await res.text();
  expect(`${res.status}`, answer).toBe(statusLine.split(' ')[1]);
  for (const line of responseHeaders) {
    const [name = '', value = ''] = line.split(/:\s*/, 2);
    expect(res.headers.get(name), name).toBe(value);
  }
  const expected = responseBody.join('\n\n').trim();
  if (expected) {
    const actual = JSON.parse(answer);
    expect(matches(JSON.parse(expected), actual), `got ${answer}`).toBe(true);
  }
}

describe("the documentation's examples", () => {
  it('are there: the README and the API page have some', () => {
    const files = new Set(examples.map((block) => block.file));
    expect(files).toContain('README.md');
    expect(files).toContain('docs/api.md');
    for (const block of examples)
      expect(['sh', 'http'], `${block.file}:${block.line}`).toContain(block.info);
  });

  for (const block of examples) {
    it(`${block.file}:${block.line} (${block.info})`, async () => {
      if (block.info === 'sh') await runShell(block);
      else await runHttp(block);
    });
  }
});
