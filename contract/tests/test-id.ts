/**
 * A test's identity and what its id in the API is made from, shared by the server (which stores results under it)
 * and the reporter (which matches a run's failures against the quarantine list by it), so both
 * compute the same id from the same case.
 */

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

/**
 * The text a test's id is the hash of (SHA-256, base64url, first 16 characters: 96 bits, so a
 * project's ids never collide in practice). The hashing is each side's (node:crypto on the
 * server and in the reporter; contract/ has no Node built-ins, it runs in browsers too).
 */
export function testIdText(identity: TestIdentity): string {
  return ['t', identity.suite, identity.classname ?? '', identity.name, identity.file ?? ''].join(
    '\u0000',
  );
}
