/**
 * Orders strings by their UTF-8 bytes, as SQLite's BINARY collation and PostgreSQL's "C" do (and
 * as code points do). JavaScript's `<` compares UTF-16 code units, which puts U+E000–U+FFFF after
 * the characters beyond U+FFFF: paging by key must agree with the database's order.
 */
export function byteOrder(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i) as number;
    const y = b.codePointAt(i) as number;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}
