import { type BenchmarkResult, type LineTool, result } from './result.js';

/**
 * `go test -bench` (the Go benchmark data format: `<name> <iterations> <value> <unit> [<value>
 * <unit>...]`), over one or several packages (`pkg:` lines). As github-action-benchmark names
 * them: a line of one unit is `<name>`; a line of several is one result per unit, `<name> -
 * <unit>`; with several packages, a name that does not mention its package gets ` (<package>)`.
 * (github-action-benchmark also emits `<name>` with the rest of the line as its unit for a line
 * of several units, a unit holding whitespace: not here.)
 */
const LINE = /^(Benchmark\S*?)(-\d+)?\s+(\d+)\s+(\S.*)$/;

interface Row {
  pkg: string;
  name: string;
  extra: string;
  pairs: [number, string][];
}

/** Whether the benchmark's name already says its package (two path segments at least). */
function mentionsPackage(name: string, pkg: string): boolean {
  const segments = pkg.split('/');
  for (let i = 0; i + 2 <= segments.length; i++) {
    const suffix = segments.slice(i).join('/');
    if (name.includes(suffix) || name.includes(suffix.replace(/\//g, '_'))) return true;
  }
  return false;
}

export const go: LineTool = {
  kind: 'lines',
  expected: 'the output of go test -bench',
  create() {
    // Rows wait for the end: whether names get their package depends on how many there are.
    const rows: Row[] = [];
    const packages = new Set<string>();
    let pkg = '';
    return {
      line(text) {
        if (text.startsWith('pkg:')) {
          pkg = text.slice(4).trim();
          if (pkg) packages.add(pkg);
          return;
        }
        const m = LINE.exec(text);
        if (!m) return;
        const [, name = '', procs, times = '', rest = ''] = m;
        const fields = rest.trim().split(/\s+/);
        if (fields.length % 2 !== 0) return;
        const pairs: [number, string][] = [];
        for (let i = 0; i < fields.length; i += 2) {
          const value = Number(fields[i]);
          if (!/^[-+\d.eE]+$/.test(fields[i] as string)) return;
          pairs.push([value, fields[i + 1] as string]);
        }
        const extra = procs ? `${times} times\n${procs.slice(1)} procs` : `${times} times`;
        rows.push({ pkg, name, extra, pairs });
      },
      end() {
        const several = packages.size > 1;
        const results: BenchmarkResult[] = [];
        for (const row of rows) {
          const base =
            several && row.pkg && !mentionsPackage(row.name, row.pkg)
              ? `${row.name} (${row.pkg})`
              : row.name;
          for (const [value, unit] of row.pairs) {
            const name = row.pairs.length > 1 ? `${base} - ${unit}` : base;
            const made = result(name, value, unit, undefined, undefined, row.extra);
            if (made) results.push(made);
          }
        }
        return results;
      },
    };
  },
};
