import type { TestCase, TestStatus } from '../../contract/tests/ingest-tests.js';
import { TestLimits } from '../../contract/tests/test-limits.js';

const STATUSES: readonly TestStatus[] = ['passed', 'failed', 'error', 'skipped'];
const NONE = -1;

/** Cuts a text to the contract's limit (a longer name would refuse the whole batch). */
const cut = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

/**
 * Every test case of a run's reports, kept compactly while the reports are read: texts (suite,
 * class, name, file, message) once each, and per case a few numbers in typed arrays, so that the
 * cases of a 100 MB report (hundreds of thousands) fit in a small heap. Read back in batches.
 */
export class CaseTable {
  readonly #texts: string[] = [];
  readonly #ids = new Map<string, number>();
  #size = 0;
  #capacity = 1024;
  #strings = new Int32Array(this.#capacity * 5);
  #numbers = new Float64Array(this.#capacity);
  #small = new Uint8Array(this.#capacity * 2);
  #lines = new Int32Array(this.#capacity);

  get size(): number {
    return this.#size;
  }

  #text(text: string | undefined, max: number): number {
    if (text === undefined || text === '') return NONE;
    const value = cut(text, max);
    let id = this.#ids.get(value);
    if (id === undefined) {
      id = this.#texts.length;
      this.#texts.push(value);
      this.#ids.set(value, id);
    }
    return id;
  }

  #grow(): void {
    this.#capacity *= 2;
    const grown = <T extends Int32Array | Float64Array | Uint8Array>(old: T, per: number): T => {
      const next = new (old.constructor as new (n: number) => T)(this.#capacity * per);
      next.set(old);
      return next;
    };
    this.#strings = grown(this.#strings, 5);
    this.#numbers = grown(this.#numbers, 1);
    this.#small = grown(this.#small, 2);
    this.#lines = grown(this.#lines, 1);
  }

  add(test: TestCase): void {
    if (this.#size === this.#capacity) this.#grow();
    const i = this.#size++;
    const s = this.#strings;
    s[i * 5] = this.#text(test.suite, TestLimits.suiteLength);
    s[i * 5 + 1] = this.#text(test.classname, TestLimits.classnameLength);
    // A name is required: an empty one is kept as `(unnamed)`.
    s[i * 5 + 2] = this.#text(test.name || '(unnamed)', TestLimits.nameLength);
    s[i * 5 + 3] = this.#text(test.file, TestLimits.fileLength);
    s[i * 5 + 4] = this.#text(test.message, TestLimits.messageLength);
    this.#numbers[i] = Math.min(Math.max(test.duration_ms, 0), TestLimits.durationMaxMs);
    this.#small[i * 2] = STATUSES.indexOf(test.status);
    this.#small[i * 2 + 1] = Math.min(test.attempts ?? 1, TestLimits.attemptsMax);
    this.#lines[i] = test.line !== undefined && test.line >= 1 ? test.line : 0;
  }

  /** Case `i` as the contract's TestCase. */
  get(i: number): TestCase {
    const s = this.#strings;
    const text = (n: number) => {
      const id = s[i * 5 + n] as number;
      return id === NONE ? undefined : (this.#texts[id] as string);
    };
    const classname = text(1);
    const file = text(3);
    const message = text(4);
    const line = this.#lines[i] as number;
    const attempts = this.#small[i * 2 + 1] as number;
    return {
      suite: text(0) ?? '',
      ...(classname === undefined ? {} : { classname }),
      name: text(2) as string,
      ...(file === undefined ? {} : { file }),
      ...(line > 0 ? { line } : {}),
      duration_ms: this.#numbers[i] as number,
      status: STATUSES[this.#small[i * 2] as number] as TestStatus,
      ...(message === undefined ? {} : { message }),
      ...(attempts > 1 ? { attempts } : {}),
    };
  }

  /** The cases in batches of at most `size`, in the order they were read. */
  *batches(size: number = TestLimits.casesPerBatch): Generator<TestCase[]> {
    for (let start = 0; start < this.#size; start += size) {
      const batch: TestCase[] = [];
      for (let i = start; i < Math.min(start + size, this.#size); i++) batch.push(this.get(i));
      yield batch;
    }
  }
}
