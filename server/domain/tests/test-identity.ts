import { hash } from 'node:crypto';

/** A test's identity: suite, class, name and file (when known), normalised. */
export interface TestIdentity {
  suite: string;
  classname: string | null;
  name: string;
  file: string | null;
}

/**
 * The same text whatever produced it: Unicode NFC, no surrounding whitespace, runs of whitespace
 * as one space (reporters wrap and indent names differently). Nothing else changes, so the
 * parameters of a parametrised name (`test_x[1-2]`, `adds 1 + 2`) keep tests distinct.
 */
export function normaliseName(name: string): string {
  return name.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** A file path as every runner writes it: forward slashes, no leading `./`. */
export function normaliseFile(file: string): string {
  return normaliseName(file)
    .replaceAll('\\', '/')
    .replace(/^(\.\/)+/, '');
}

const orNull = (text: string | null | undefined) => (text ? text : null);

export function testIdentity(test: {
  suite: string;
  classname?: string | undefined;
  name: string;
  file?: string | undefined;
}): TestIdentity {
  return {
    suite: normaliseName(test.suite),
    classname: orNull(test.classname === undefined ? null : normaliseName(test.classname)),
    name: normaliseName(test.name),
    file: orNull(test.file === undefined ? null : normaliseFile(test.file)),
  };
}

const shortHash = (text: string) => hash('sha256', text, 'base64url').slice(0, 16);

/**
 * A test's id in the API: a hash of its identity, so the same test has the same id on every
 * run, every backend and every server. (A project's ids never collide in practice: 96 bits.)
 */
export function testIdOf(identity: TestIdentity): string {
  return shortHash(
    ['t', identity.suite, identity.classname ?? '', identity.name, identity.file ?? ''].join(
      '\u0000',
    ),
  );
}

/** A run's id: (build id, attempt), hashed likewise. */
export function runIdOf(buildId: string, attempt: number): string {
  return shortHash(`r\u0000${buildId}\u0000${attempt}`);
}
