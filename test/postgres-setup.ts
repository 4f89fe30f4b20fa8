import { afterAll } from 'vitest';
import { releaseTestDatabases } from './helpers/test-database.js';

// Each test file of the postgres project drops its migrated template when its tests are done.
afterAll(releaseTestDatabases);
