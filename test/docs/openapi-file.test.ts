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
