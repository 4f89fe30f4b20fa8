import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';

/**
 * What makes a pattern a glob (tinyglobby's and picomatch's special characters, and the escape):
 * a pattern without any is a path, read without loading the glob library at all.
 */
const GLOB_CHARACTERS = /[*?[\]{}()!\\]/;

/** A path pattern: the file it names, or none when it is missing or not a file (as a glob). */
async function namedFile(pattern: string, cwd: string): Promise<string[]> {
  const path = resolve(cwd, pattern);
  try {
    return (await stat(path)).isFile() ? [path] : [];
  } catch {
    return [];
  }
}

/**
 * The files the patterns match (relative to `cwd`), in a stable order, each file once. A pattern
 * that matches nothing is handed to `noMatch`, which warns or throws as its reader decides. A
 * plain path is checked with one stat; only a pattern with glob characters loads tinyglobby (its
 * compile and picomatch's regular expressions were most of a step's cost of one benchmark file).
 */
export async function matchingFiles(
  patterns: string[],
  cwd: string,
  noMatch: (pattern: string) => void,
): Promise<Set<string>> {
  const files = new Set<string>();
  for (const pattern of patterns) {
    const matches = GLOB_CHARACTERS.test(pattern)
      ? await (await import('tinyglobby')).glob(pattern, {
          cwd,
          absolute: true,
          onlyFiles: true,
          dot: true,
          expandDirectories: false,
        })
      : await namedFile(pattern, cwd);
    if (matches.length === 0) noMatch(pattern);
    for (const file of matches.sort()) files.add(file);
  }
  return files;
}
