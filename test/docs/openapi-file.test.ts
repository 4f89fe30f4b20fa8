import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';

/** docs/openapi.json is the document the server generates: the repository's API reference. */
it('docs/openapi.json is what the server generates (else: npm run docs:openapi)', async () => {
  const server = await startTestServer();
  try {
    const generated = (await server.call('GET', '/openapi.json')).json();
    const committed = JSON.parse(readFileSync('docs/openapi.json', 'utf8'));
    expect(committed, 'docs/openapi.json is stale: run npm run docs:openapi').toEqual(generated);
  } finally {
    await server.close();
  }
});

it('every endpoint of the document is in the pages written for people', () => {
  const document = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const api = readFileSync('docs/api.md', 'utf8');
  const administration = readFileSync('docs/administration.md', 'utf8');
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const method of Object.keys(operations)) {
      // As the pages write them: `POST /admin/accounts/:accountId/keys`.
      const route = `\`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;
      const page = path.startsWith('/admin/') ? administration : api;
      expect(page, route).toContain(route);
    }
  }
});
