import { hash } from 'node:crypto';
import { type TestIdentity, testIdText } from '../../../contract/tests/test-id.js';

// The identity lives in the contract: the reporter computes the same ids (reporter/tests/test-key.ts).
export {
  normaliseFile,
  normaliseName,
  type TestIdentity,
  testIdentity,
} from '../../../contract/tests/test-id.js';

const shortHash = (text: string) => hash('sha256', text, 'base64url').slice(0, 16);

/**
 * A test's id in the API: a hash of its identity, so the same test has the same id on every
 * run, every backend and every server.
 */
export function testIdOf(identity: TestIdentity): string {
  return shortHash(testIdText(identity));
}

/** A run's id: (build id, attempt), hashed likewise. */
export function runIdOf(buildId: string, attempt: number): string {
  return shortHash(`r\u0000${buildId}\u0000${attempt}`);
}
