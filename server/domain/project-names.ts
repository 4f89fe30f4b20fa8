/**
 * Project names are unique per account whatever their case: "Web", "web" and "WEB" are one name.
 * The key compares Unicode-aware (NFKC, then lowercase), which SQLite's lower() cannot do.
 */
export function projectNameKey(name: string): string {
  return name.trim().normalize('NFKC').toLowerCase();
}
