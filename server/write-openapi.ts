import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';

/**
 * `npm run docs:openapi`: writes the OpenAPI document this server generates (admin routes
 * included) to the file named, docs/openapi.json, so the repository carries its own API
 * reference. A test fails when the file differs from what the server generates.
 */
const [file = 'docs/openapi.json'] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'ci-stats-openapi-'));
try {
  const app = await buildApp(
    loadConfig({
      DATABASE_PATH: join(dir, 'stats.db'),
      ADMIN_TOKEN: 'openapi-document-only-0123456789',
      LOG_LEVEL: 'silent',
    }),
  );
  const document = (await app.inject({ url: '/openapi.json' })).json();
  await app.close();
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`${file}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
