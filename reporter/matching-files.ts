import { glob } from 'tinyglobby';

/**
 * The files the patterns match (relative to `cwd`), in a stable order, each file once. A pattern
 * that matches nothing is handed to `noMatch`, which warns or throws as its reader decides.
 */
export async function matchingFiles(
  patterns: string[],
  cwd: string,
  noMatch: (pattern: string) => void,
): Promise<Set<string>> {
  const files = new Set<string>();
  for (const pattern of patterns) {
    const matches = await glob(pattern, {
      cwd,
      absolute: true,
      onlyFiles: true,
      dot: true,
      expandDirectories: false,
    });
    if (matches.length === 0) noMatch(pattern);
    for (const file of matches.sort()) files.add(file);
  }
  return files;
}
