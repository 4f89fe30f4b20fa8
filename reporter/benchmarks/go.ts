import { type BenchmarkResult, defined, type LineTool, result } from './result.js';

/**
 * `go test -bench` (the Go benchmark data format: `<name> <iterations> <value> <unit> [<value>
 * <unit>...]`), over one or several packages (`pkg:` lines). As github-action-benchmark names
 * them: a line of one unit is `<name>`; a line of several is one result per unit, `<name> -
 * <unit>`; with several packages, a name that does not mention its package gets ` (<package>)`.
 * (github-action-benchmark also emits `<name>` with the rest of the line as its unit for a line
 * of several units, a unit holding whitespace: not here.)
 */
const LINE = /^(Benchmark\S*?)(-\d+)?\s+(\d+)\s+(\S.*)$/;

/** The package path's suffixes of two segments or more, each as written and with `_` for `/`. */
function packageSuffixes(pkg: string): string[] {
  const segments = pkg.split('/');
  const suffixes: string[] = [];
  for (let i = 0; i + 2 <= segments.length; i++) {
    const suffix = segments.slice(i).join('/');
    suffixes.push(suffix, suffix.replace(/\//g, '_'));
  }
  return suffixes;
}

const NUMBER = /^[-+\d.eE]+$/;
const SPACES = /\s+/;

export const go: LineTool = {
  kind: 'lines',
  expected: 'the output of go test -bench',
  create(keep = Number.POSITIVE_INFINITY) {
    // Names wait for the end: whether they get their package depends on how many packages
    // there are. A 50 MB output holds about two million results, and what a parser keeps is
    // what the garbage collector copies, so a line keeps only its results and three entries of
    // the arrays below (no object per line), units are shared, and names stay unflattened.
    const results: (BenchmarkResult | undefined)[] = [];
    const rowPackage: string[] = [];
    const rowName: string[] = [];
    /** Where each line's results start in `results`; the next line's start ends them. */
    const rowFirst: number[] = [];
    const packages = new Set<string>();
    const units = new Map<string, string>();
    const unitOf = (text: string): string => {
      const unit = units.get(text);
      if (unit !== undefined) return unit;
      units.set(text, text);
      return text;
    };
    let pkg = '';
    /** Results found past `keep`: counted (each one checked as a kept one is), not kept. */
    let beyond = 0;
    return {
      beyond: () => beyond,
      line(text) {
        if (text.startsWith('pkg:')) {
          pkg = text.slice(4).trim();
          if (pkg) packages.add(pkg);
          return;
        }
        if (!text.startsWith('Benchmark')) return;
        const m = LINE.exec(text);
        if (!m) return;
        // Indexes, not destructuring: this runs for every line of outputs of millions of lines.
        const name = m[1] as string;
        const procs = m[2];
        const times = m[3] as string;
        const fields = (m[4] as string).trimEnd().split(SPACES);
        if (fields.length % 2 !== 0) return;
        for (let i = 0; i < fields.length; i += 2) if (!NUMBER.test(fields[i] as string)) return;
        if (results.length >= keep) {
          for (let i = 0; i < fields.length; i += 2)
            if (Number.isFinite(Number(fields[i]))) beyond++;
          return;
        }
        const extra = procs ? `${times} times\n${procs.slice(1)} procs` : `${times} times`;
        rowPackage.push(pkg);
        rowName.push(name);
        rowFirst.push(results.length);
        // The name is set at the end (it is a token: nothing to trim); the unit is checked here.
        for (let i = 0; i < fields.length; i += 2)
          results.push(
            result(
              name,
              Number(fields[i]),
              unitOf(fields[i + 1] as string),
              undefined,
              undefined,
              extra,
            ),
          );
      },
      end() {
        const several = packages.size > 1;
        const suffixes = new Map<string, string[]>();
        const mentions = (name: string, pkg: string): boolean => {
          let list = suffixes.get(pkg);
          if (!list) {
            list = packageSuffixes(pkg);
            suffixes.set(pkg, list);
          }
          return list.some((suffix) => name.includes(suffix));
        };
        let dropped = false;
        for (let row = 0; row < rowFirst.length; row++) {
          const name = rowName[row] as string;
          const rowPkg = rowPackage[row] as string;
          const first = rowFirst[row] as number;
          const next = rowFirst[row + 1] ?? results.length;
          const base = several && rowPkg && !mentions(name, rowPkg) ? `${name} (${rowPkg})` : name;
          for (let i = first; i < next; i++) {
            const made = results[i];
            if (made) made.name = next - first > 1 ? `${base} - ${made.unit}` : base;
            else dropped = true;
          }
        }
        return dropped ? defined(results) : (results as BenchmarkResult[]);
      },
    };
  },
};
