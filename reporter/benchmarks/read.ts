import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { InputError } from '../input-error.js';
import { matchingFiles } from '../matching-files.js';
import { BenchmarkFormatError, type BenchmarkResult, type BenchmarkTool } from './result.js';
import { describeJson } from './shape.js';
import { isBenchmarkTool, unknownTool } from './tool-names.js';
import { TOOLS } from './tools.js';

/** Whether JSON.parse of `text` fails with an unexpected token (not just by ending early). */
function failsOnToken(text: string): boolean {
  try {
    JSON.parse(text);
    return false;
  } catch (error) {
    return (error as Error).message.startsWith('Unexpected token');
  }
}

/**
 * The offset a JSON.parse error points at. V8 says "at position N" for most errors but not for
 * an unexpected token; then the shortest prefix that fails on that token is found by bisection
 * (a prefix before the token only ends early), at a few parses of the file on this error path.
 */
function errorOffset(text: string, message: string): number {
  const at = /position (\d+)/.exec(message);
  if (at) return Number(at[1]);
  if (!message.startsWith('Unexpected token')) return text.length;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (failsOnToken(text.slice(0, middle + 1))) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Where in the text a JSON.parse error points, as `line L, column C`. */
function jsonErrorPlace(text: string, message: string): string {
  const offset = errorOffset(text, message);
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}

/** Reads one JSON document, saying where it breaks when it does not parse. */
export function parseJson(withBom: string, expected: string): unknown {
  const text = withBom.replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const reason = message
      .replace(/\s*in JSON at position \d+.*$/s, '')
      .replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, '');
    throw new BenchmarkFormatError(
      `expected ${expected}, found text that is not JSON (${jsonErrorPlace(text, message)}: ${reason})`,
    );
  }
}

/** What a line-based tool was given instead, when it found nothing: JSON, or another tool's lines. */
function describeText(head: string, tool: BenchmarkTool): string | undefined {
  const start = head.trimStart()[0];
  if (start === '{' || start === '[') {
    try {
      return describeJson(JSON.parse(head));
    } catch {
      return 'JSON';
    }
  }
  for (const [name, other] of Object.entries(TOOLS)) {
    if (other === tool || other.kind !== 'lines') continue;
    const parser = other.create();
    try {
      for (const line of head.split(/\r?\n/)) parser.line(line);
      if (parser.end().length > 0) return `${other.expected} (tool ${name})`;
    } catch {
      // Not that tool's either.
    }
  }
  return undefined;
}

/** A text output up to this size is read at once; a larger one is streamed. */
const READ_AT_ONCE = 1024 * 1024;

/**
 * The lines of a text output, as readline splits them (\n, \r\n or a lone \r; no last empty
 * line): a small file read at once (a stream and readline cost a step more than the read), a
 * larger one streamed, any size in little memory.
 */
async function linesOf(path: string): Promise<Iterable<string> | AsyncIterable<string>> {
  if ((await stat(path)).size <= READ_AT_ONCE) {
    const lines = (await readFile(path, 'utf8')).split(/\r\n|\n|\r/);
    if (lines.at(-1) === '') lines.pop();
    return lines;
  }
  return createInterface({
    input: createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
}

/** Reads a text output line by line. */
async function readLines(
  path: string,
  tool: Extract<BenchmarkTool, { kind: 'lines' }>,
  keep: number,
): Promise<{ results: BenchmarkResult[]; beyond: number }> {
  const parser = tool.create(keep);
  let head = '';
  for await (const line of await linesOf(path)) {
    if (head.length < 64 * 1024) head += `${line}\n`;
    parser.line(line);
  }
  const results = parser.end();
  const beyond = parser.beyond?.() ?? 0;
  if (results.length === 0 && beyond === 0) {
    const found = describeText(head, tool);
    if (found) throw new BenchmarkFormatError(`expected ${tool.expected}, found ${found}`);
  }
  return { results, beyond };
}

export interface BenchmarkFiles {
  /** The results, in the files' order: all of them, or the first `keep`. */
  results: BenchmarkResult[];
  /** How many results the files hold (more than `results` holds when `keep` cut them). */
  found: number;
  files: string[];
}

/**
 * Reads every file the patterns match (relative to `cwd`; each one a path or a glob) with the
 * tool's parser. An unknown tool, a pattern matching no file, a file of another format or JSON
 * that does not parse is an InputError of `benchmark-file` (or `benchmark-tool`): nothing is sent.
 * A file without any benchmark is a warning. With `keep`, only the first `keep` results are
 * kept and the others counted (`found`): what a step does, which sends a few thousand at most.
 */
export async function readBenchmarkFiles(
  toolName: string,
  patterns: string[],
  warn: (message: string) => void,
  cwd: string = process.cwd(),
  keep: number = Number.POSITIVE_INFINITY,
): Promise<BenchmarkFiles> {
  if (!isBenchmarkTool(toolName)) throw unknownTool(toolName);
  const tool = TOOLS[toolName];
  const files = await matchingFiles(patterns, cwd, (pattern) => {
    throw new InputError('benchmark-file', `${pattern}: no such file`);
  });
  const results: BenchmarkResult[] = [];
  let total = 0;
  for (const file of files) {
    let found: BenchmarkResult[];
    let beyond = 0;
    try {
      if (tool.kind === 'lines')
        ({ results: found, beyond } = await readLines(file, tool, keep - results.length));
      else found = tool.parse(parseJson(await readFile(file, 'utf8'), tool.expected));
    } catch (error) {
      if (error instanceof BenchmarkFormatError)
        throw new InputError('benchmark-file', `${file}: ${error.message}`);
      const code = (error as NodeJS.ErrnoException).code;
      if (code) throw new InputError('benchmark-file', `${file} cannot be read (${code})`);
      throw error;
    }
    if (found.length + beyond === 0)
      warn(`No benchmark in ${file} (${tool.expected}): the harness printed none`);
    total += found.length + beyond;
    for (const one of found) if (results.length < keep) results.push(one);
  }
  return { results, found: total, files: [...files] };
}
