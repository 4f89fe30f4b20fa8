import { readFileSync } from 'node:fs';

/**
 * Two V8 CPU profiles (`node --cpu-prof`, as `BENCH_CPU_PROF` takes them in bench/against.ts)
 * compared function by function: self time per function and per area (a package, a folder of
 * ours, Node's internals, the garbage collector), in µs per request when the requests each
 * process served are given.
 *
 *   node build/bench/cpu-profile-summary.js <ref.cpuprofile> <ours.cpuprofile> [requests ref] [requests ours]
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a function lives: a package, a folder of ours, Node itself, or V8's own entries. */
function areaOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.startsWith('node:')) return 'node: internals';
  const ours = /\/build\/((?:server|contract)\/(?:[^/]+\/)?)/.exec(url);
  if (ours) return ours[1] as string;
  return url;
}

/** The parts of an ingest request, by where its functions live (first match). */
const PARTS: [string, RegExp][] = [
  ['idle', /^\(idle\) $/],
  ['garbage collector', /garbage collector/],
  ['V8 (program)', /\(program\)/],
  ['statistics cells (fold)', /stats-fold|sqlite-stats|series-sum|sketch|time-buckets/],
  ['rate limit', /rate-limit|token-bucket|budgets|key-concurrency/],
  [
    'SQLite: statements, commit, WAL flush',
    /better-sqlite3|group-commit|sqlite-|store\/records|server\/db\/|time-marks|storage-plugin|storage\/sqlite/,
  ],
  ['validation (zod, contract, faithful JSON)', /zod\/|contract\/|faithful-json|body-validator/],
  ['JSON parse (secure-json-parse)', /secure-json-parse/],
  ['Fastify: routing, hooks, reply', /fastify\/|find-my-way|avvio|fastq|toad-cache|@fastify/],
  ['logging (pino)', /pino/],
  ['ids, key hash, services, auth', /uuid|hash node:internal\/crypto|server\/|crypto/],
  ['Node: HTTP, streams, ticks', /node:/],
  ['socket writes and other native', /^(writev|\(native\)|[^ ]* )$|^\(anonymous\) $/],
];

const partOf = (name: string) => PARTS.find(([, pattern]) => pattern.test(name))?.[0] ?? 'other';

/** Self time (µs) per function and per area. */
function selfTimes(path: string) {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const functions = new Map<string, number>();
  const areas = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = (byId.get(id) as ProfileNode).callFrame;
    const file = url.replace(/^.*\/(build|node_modules)\//, '');
    const name = `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    const area = areaOf(url, functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const parts = new Map<string, number>();
  for (const [name, us] of functions) {
    const part = partOf(name);
    parts.set(part, (parts.get(part) ?? 0) + us);
  }
  return { functions, areas, parts, total: profile.endTime - profile.startTime };
}

const [refPath, oursPath, refRequests, oursRequests] = process.argv.slice(2);
if (!refPath || !oursPath) {
  process.stderr.write('usage: cpu-profile-summary <ref.cpuprofile> <ours.cpuprofile> [n] [n]\n');
  process.exit(2);
}
const ref = selfTimes(refPath);
const ours = selfTimes(oursPath);
const per = (us: number, requests: string | undefined) =>
  requests ? (us / Number(requests)).toFixed(2) : (us / 1000).toFixed(0);
const unit = refRequests ? 'µs per request' : 'ms';

function table(title: string, a: Map<string, number>, b: Map<string, number>, rows: number) {
  const names = [...new Set([...a.keys(), ...b.keys()])];
  const weight = (name: string) =>
    Math.max(
      (a.get(name) ?? 0) / Number(refRequests ?? 1),
      (b.get(name) ?? 0) / Number(oursRequests ?? 1),
    );
  names.sort((x, y) => weight(y) - weight(x));
  const lines = [`| ${title} | ref ${unit} | ours ${unit} |`, '|---|---:|---:|'];
  for (const name of names.slice(0, rows)) {
    lines.push(
      `| ${name.replaceAll('|', '\\|')} | ${per(a.get(name) ?? 0, refRequests)} | ${per(b.get(name) ?? 0, oursRequests)} |`,
    );
  }
  return lines.join('\n');
}

const busy = (areas: Map<string, number>) =>
  [...areas].reduce((n, [area, us]) => (area === '(idle)' ? n : n + us), 0);
process.stdout.write(
  [
    `Busy (everything but idle): ref ${per(busy(ref.areas), refRequests)}, ours ${per(busy(ours.areas), oursRequests)} ${unit}.`,
    '',
    table('Part', ref.parts, ours.parts, 20),
    '',
    table('Area', ref.areas, ours.areas, 40),
    '',
    table('Function (self time)', ref.functions, ours.functions, 60),
    '',
  ].join('\n'),
);
