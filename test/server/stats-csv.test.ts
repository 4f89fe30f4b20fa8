import { describe, expect, it } from 'vitest';
import { newRecordId } from '../../server/domain/ids.js';
import { branchOf, statusOf } from '../../server/domain/record-facts.js';
import { FormClient } from '../helpers/form-client.js';
import { seededRandom, storeMetric } from '../helpers/seed-records.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Issue 28's "every table and chart offers CSV of what it shows": the build-health bars and the
 * timeline as CSV, on the owner's page and through a share link (read-only), checked against
 * what the page shows and against figures computed here from the records seeded.
 */

let server: TestServer;
let me: TestAccount;
eachTestServer((started) => ({ server, me } = started));

const HOUR = 3_600_000;

interface Seeded {
  at: number;
  type: string;
  status: string;
  branch: string;
  description: string;
  commit: string;
  buildUrl: string;
}

async function seed(): Promise<Seeded[]> {
  const random = seededRandom(5);
  const now = Date.now();
  const seeded: Seeded[] = [];
  // In time order, as ingest stores them (the statistics' time marks assume it).
  const times = Array.from(
    { length: 45 },
    () => now - 60 * HOUR + Math.floor(random() * 59 * HOUR),
  );
  times.sort((a, b) => a - b);
  for (const [i, at] of times.entries()) {
    const status = ['success', 'success', 'failure', 'cancelled', 'skipped'][
      Math.floor(random() * 5)
    ] as string;
    const branch = random() < 0.6 ? 'main' : 'dev';
    const type = random() < 0.8 ? 'build' : 'deploy';
    // A description a spreadsheet would run as a formula, and one with a comma and a quote.
    const description = i % 7 === 0 ? `=HYPERLINK("x",${i})` : `run ${i}, "quoted"`;
    const commit = (i * 7919).toString(16).padStart(12, 'a');
    const buildUrl = `https://ci.example.com/builds/${i}`;
    seeded.push({ at, type, status, branch, description, commit, buildUrl });
    const payload = { status, ci: { branch, commit, build_url: buildUrl, provider: 'woodpecker' } };
    await server.app.storage.records.append({
      kind: 'event',
      notification: undefined,
      row: {
        id: newRecordId(),
        projectId: me.projectId,
        eventType: type,
        description,
        payload: JSON.stringify(payload),
        color: null,
        createdAt: at,
        branch: branchOf(payload),
        status: statusOf(payload),
      },
    });
    await storeMetric(server, me.projectId, at, { duration_ms: 1000 + i, ci: { branch } });
  }
  return seeded;
}

/** RFC 4180 text to rows of fields (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  expect(field, 'the text ends with CRLF').toBe('');
  const [head, ...body] = rows;
  return body.map((r) => Object.fromEntries((head as string[]).map((h, n) => [h, r[n] ?? ''])));
}

/** The build-health bars as the page shows them: bucket start → counts by status. */
function barsOf(body: string): Map<number, number[]> {
  return new Map(
    [
      ...body.matchAll(
        /<title>(\d{4}-\d\d-\d\d \d\d:\d\d) UTC: (\d+) success, (\d+) failure, (\d+) cancelled, (\d+) other<\/title>/g,
      ),
    ].map((m) => [
      Date.parse(`${(m[1] as string).replace(' ', 'T')}:00Z`),
      m.slice(2, 6).map(Number),
    ]),
  );
}

/** The CSV links of a page, by table (and a chart's key), as their addresses. */
function csvLinksOf(body: string): Map<string, string> {
  const links = new Map<string, string>();
  for (const m of body.matchAll(/<a class="csv-link" href="([^"]+)"/g)) {
    const href = (m[1] as string).replace(/&amp;/g, '&');
    const query = new URLSearchParams(href.slice(href.indexOf('?') + 1));
    links.set(`${query.get('table')}${query.has('key') ? ` ${query.get('key')}` : ''}`, href);
  }
  return links;
}

const STATUS_COLUMN: Record<string, number> = { success: 0, failure: 1, cancelled: 2 };

describe('CSV of the build-health bars and the timeline', () => {
  it('gives the bars and the timeline shown, on the owner page and through a share link', async () => {
    const seeded = await seed();
    const browser = new FormClient(server);
    await browser.signIn(me.apiKey);
    const path = `/dashboard/projects/${me.projectId}`;
    const page = await browser.get(`${path}?range=7d&branch=main`);
    expect(page.statusCode).toBe(200);
    const links = csvLinksOf(page.body);
    for (const table of ['headline', 'build-health', 'event-types', 'keys', 'timeline']) {
      expect(links.get(table), table).toBeDefined();
    }

    // The bars: the page's and the CSV's counts are the same, and those of the records seeded.
    const bars = await browser.get(links.get('build-health') as string);
    expect(bars.statusCode).toBe(200);
    expect(bars.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(bars.headers['content-disposition']).toBe('attachment; filename="build-health.csv"');
    const rows = parseCsv(bars.body);
    // The buckets with an event, each with its counts: every event of the branch once.
    const total = rows.reduce(
      (n, r) => n + Number(r.success) + Number(r.failure) + Number(r.cancelled) + Number(r.other),
      0,
    );
    expect(total, bars.body).toBe(seeded.filter((s) => s.branch === 'main').length);
    const fromCsv = new Map(
      rows.map((r) => [
        Date.parse(r.start as string),
        [r.success, r.failure, r.cancelled, r.other].map(Number),
      ]),
    );
    expect(fromCsv).toEqual(barsOf(page.body));
    const onMain = seeded.filter((s) => s.branch === 'main');
    for (const row of rows) {
      const start = Date.parse(row.start as string);
      const end = Date.parse(row.end as string);
      const want = [0, 0, 0, 0];
      for (const s of onMain.filter((x) => x.at >= start && x.at < end)) {
        const column = STATUS_COLUMN[s.status] ?? 3;
        want[column] = (want[column] as number) + 1;
      }
      expect([row.success, row.failure, row.cancelled, row.other].map(Number), row.start).toEqual(
        want,
      );
    }

    // The timeline: its first page and the next, as shown, with their links, newest first.
    const newest = [...onMain].sort((a, b) => b.at - a.at);
    const timelinePage = async (body: string, href: string, want: Seeded[]) => {
      const shown = [
        ...(/<h2 id="timeline-title">[\s\S]*?<\/section>/.exec(body)?.[0] ?? '').matchAll(
          /<time datetime="([^"]+)"/g,
        ),
      ].map((m) => m[1]);
      const csv = await browser.get(href);
      expect(csv.statusCode).toBe(200);
      const events = parseCsv(csv.body);
      expect(events.map((e) => e.time)).toEqual(shown);
      expect(events.map((e) => Date.parse(e.time as string))).toEqual(want.map((s) => s.at));
      for (const [n, event] of events.entries()) {
        const s = want[n] as Seeded;
        expect(event.event_type).toBe(s.type);
        expect(event.status).toBe(s.status);
        expect(event.branch).toBe('main');
        // A formula is written with a leading apostrophe; the rest as stored.
        expect(event.description).toBe(
          s.description.startsWith('=') ? `'${s.description}` : s.description,
        );
        expect(event.commit).toBe(s.commit.slice(0, 7));
        expect(event.links).toBe(`run: ${s.buildUrl}`);
      }
    };
    await timelinePage(page.body, links.get('timeline') as string, newest.slice(0, 20));
    const older = /<a href="([^"]+)">Older events<\/a>/
      .exec(page.body)?.[1]
      ?.replace(/&amp;/g, '&');
    expect(older).toBeDefined();
    const second = await browser.get(older as string);
    const secondLink = csvLinksOf(second.body).get('timeline') as string;
    expect(secondLink).toContain('before=');
    await timelinePage(second.body, secondLink, newest.slice(20, 40));

    // A share link's page offers the same CSV links, read-only, with the same figures.
    const { token } = await server.app.services.shareLinks.create(
      me.accountId,
      me.projectId,
      'http://localhost',
    );
    const shared = await server.call('GET', `/share/${token}?range=7d&branch=main`);
    expect(shared.statusCode).toBe(200);
    const sharedLinks = csvLinksOf(shared.body);
    expect([...sharedLinks.keys()].sort()).toEqual([...links.keys()].sort());
    for (const [table, href] of sharedLinks) {
      expect(href.startsWith(`/share/${token}/export.csv?`), href).toBe(true);
      const fromShare = await server.call('GET', href);
      expect(fromShare.statusCode, table).toBe(200);
      expect(fromShare.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(fromShare.headers['content-disposition']).toMatch(/^attachment; filename="/);
      const owners = await browser.get(links.get(table) as string);
      expect(fromShare.body, table).toBe(owners.body);
    }

    // Refused: an unknown table (400 naming it), nothing for a revoked link (404, no download).
    const bad = await server.call('GET', `/share/${token}/export.csv?range=7d&table=secrets`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: expect.stringContaining('table') });
    await server.app.services.shareLinks.revoke(me.accountId, token);
    const gone = await server.call('GET', `/share/${token}/export.csv?range=7d&table=timeline`);
    expect(gone.statusCode).toBe(404);
    expect(gone.headers['content-disposition']).toBeUndefined();
  });
});
