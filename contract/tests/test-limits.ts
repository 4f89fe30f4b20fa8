/** Limits of the tests' part of the wire contract (issue 25); our decisions, like `limits.ts`. */
export const TestLimits = {
  /** Test cases in one POST /stats/ingest-tests: a larger run is sent in several batches. */
  casesPerBatch: 5000,
  /** A suite, class or file name; a test's name (parametrised names can be long). */
  suiteLength: 500,
  classnameLength: 500,
  fileLength: 500,
  nameLength: 1000,
  /** A failure's message: its first line, at most this long. */
  messageLength: 200,
  buildIdLength: 200,
  commitLength: 64,
  branchLength: 200,
  eventIdLength: 64,
  attemptsMax: 100,
  runAttemptMax: 10_000,
  /** A single test's duration: a week, in ms. */
  durationMaxMs: 7 * 24 * 60 * 60 * 1000,
  /** Decompressed request body of one batch (5,000 cases of long names fit). */
  bodyBytes: 16 * 1024 * 1024,
  reasonLength: 500,
  /** Free-text search over test names. */
  queryLength: 200,
} as const;
