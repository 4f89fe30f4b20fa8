/**
 * What is accepted is what is stored. `JSON.parse` silently changes three kinds of input: a lone
 * UTF-16 surrogate (`"\ud800"`) becomes U+FFFD once the text is encoded as UTF-8 (SQLite, the
 * answer), a number too large for a double (`1e309`) becomes Infinity (`null` when serialised), and
 * an integer beyond 2^53 - 1 (`9007199254740993`) is rounded. Such bodies are refused with 400
 * instead, naming the field; this module finds them, without recursion (nesting cannot overflow).
 */

export interface BodyIssue {
  path: string[];
  message: string;
}

const LONE_SURROGATE = 'contains a lone UTF-16 surrogate (not valid Unicode text)';
const NOT_FINITE = 'is a number too large for a 64-bit float';
const UNSAFE_INTEGER = 'is an integer beyond 2^53 - 1, which cannot be stored exactly';

/** Problems of each parsed body, found by the JSON parser and reported by the body validator. */
const problems = new WeakMap<object, BodyIssue[]>();

export const bodyIssuesOf = (body: unknown): BodyIssue[] | undefined =>
  typeof body === 'object' && body !== null ? problems.get(body) : undefined;

/**
 * What every unfaithful body's text holds, and almost no other body's: a `\uD800`–`\uDFFF`
 * escape (the only way to write a lone surrogate: the text itself was decoded from UTF-8), a run of
 * 16 digits (an unsafe integer; a number too large for a double without a 3-digit exponent needs
 * over 200), or a number with an exponent of 3 digits. A text without any of them needs no walk of
 * its body, which saves most requests a microsecond and the walk's garbage; one with them is
 * walked. The number is matched from the character before it, which in JSON is `:`, `[`, `,` or
 * white space: `e` and 3 digits alone matched inside ids, and a quarter of random UUIDs hold such
 * a run (`…9f0e-3116…`), so a quarter of the projects had every ingest body walked for nothing.
 */
const MAY_BE_UNFAITHFUL = /\\u[dD][89a-fA-F]|\d{16}|[\s:,[]-?\d+(?:\.\d+)?[eE][+-]?\d{3}/;

/** Whether a body's text may hold what `checkFaithful` refuses (when not, it is not walked). */
export const mayBeUnfaithful = (text: string): boolean => MAY_BE_UNFAITHFUL.test(text);

/** Checks a parsed body against its text and remembers what would not be stored faithfully. */
export function checkFaithful(text: string, body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  if (!mayBeUnfaithful(text)) return;
  const found = findIssues(body, hasUnsafeIntegerLiteral(text));
  if (found.length > 0) problems.set(body, found);
}

interface Node {
  value: unknown;
  key: string;
  parent: Node | undefined;
}

const pathOf = (node: Node): string[] => {
  const path: string[] = [];
  for (let at: Node | undefined = node; at?.parent !== undefined; at = at.parent) {
    path.push(at.key);
  }
  return path.reverse();
};

/** At most this many issues are listed: enough to fix a body, bounded for a hostile one. */
const MAX_ISSUES = 20;

function findIssues(body: object, unsafeIntegers: boolean): BodyIssue[] {
  const found: BodyIssue[] = [];
  const stack: Node[] = [{ value: body, key: '', parent: undefined }];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const { value } = node;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) found.push({ path: pathOf(node), message: LONE_SURROGATE });
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) found.push({ path: pathOf(node), message: NOT_FINITE });
      else if (unsafeIntegers && Number.isInteger(value) && !Number.isSafeInteger(value)) {
        found.push({ path: pathOf(node), message: UNSAFE_INTEGER });
      }
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        const childNode = { value: child, key, parent: node };
        if (!key.isWellFormed()) found.push({ path: pathOf(childNode), message: LONE_SURROGATE });
        stack.push(childNode);
      }
    }
    if (found.length >= MAX_ISSUES) break;
  }
  return found;
}

/**
 * Whether the JSON text holds an integer literal (no fraction, no exponent) beyond 2^53 - 1: a
 * scan of the number tokens outside strings. `1e20` or `1.5` are a double as written and stay
 * accepted; `9007199254740993` cannot be kept exactly.
 */
export function hasUnsafeIntegerLiteral(text: string): boolean {
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22 /* " */) {
      for (i++; i < length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === 0x5c /* \ */) i++;
        else if (inner === 0x22) break;
      }
    } else if (code === 0x2d /* - */ || (code >= 0x30 && code <= 0x39)) {
      const start = i;
      let digits = 0;
      let integer = true;
      for (; i < length; i++) {
        const c = text.charCodeAt(i);
        if (c >= 0x30 && c <= 0x39) digits++;
        else if (c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b) integer = false;
        else if (c !== 0x2d) break;
      }
      // 2^53 - 1 has 16 digits: shorter integers are always safe.
      if (integer && digits >= 16 && !Number.isSafeInteger(Number(text.slice(start, i)))) {
        return true;
      }
      i--;
    }
  }
  return false;
}
