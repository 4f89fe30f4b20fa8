import { FakeService, type RecordedRequest, type Reply } from './fake-service.js';

/**
 * GitLab's merge-request notes API (v4) as far as the CLI uses it, on 127.0.0.1 (found through
 * CI_API_V4_URL), with GitLab's rules: PRIVATE-TOKEN must be a known token or 401; a token without
 * the api scope reads but gets 403 on every write; a note is at most 1,000,000 characters (else
 * 400); lists are paged with per_page and page and an `x-next-page` header. It keeps the notes.
 */
export const GITLAB_TOKENS = {
  api: 'glpat-api-scope-0001',
  readOnly: 'glpat-read-only-0002',
} as const;

/** The merge request the fake knows: project 42, !7. */
export const MERGE_REQUEST = { project: '42', iid: '7' } as const;

const NOTE_LIMIT = 1_000_000;

export interface StoredNote {
  id: number;
  body: string;
  system: boolean;
}

export class FakeGitLab extends FakeService {
  readonly notes: StoredNote[] = [
    // A system note and a person's note come first on a real merge request.
    { id: 1, body: 'added 1 commit', system: true },
    { id: 2, body: 'Looks good to me', system: false },
  ];
  #nextId = 100;

  constructor() {
    super();
    this.script((request) => this.#answer(request));
  }

  /** The requests that wrote (POST or PUT). */
  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' || r.method === 'PUT');
  }

  #answer(request: RecordedRequest): Reply {
    const token = request.headers['private-token'];
    if (!(Object.values(GITLAB_TOKENS) as unknown[]).includes(token)) {
      return { status: 401, body: { message: '401 Unauthorized' } };
    }
    const notes = /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes(?:\/(\d+))?$/.exec(
      request.path,
    );
    if (!notes || notes[1] !== MERGE_REQUEST.project || notes[2] !== MERGE_REQUEST.iid) {
      return { status: 404, body: { message: '404 Not found' } };
    }
    if (request.method === 'GET' && notes[3] === undefined) return this.#list(request.query);
    if (token === GITLAB_TOKENS.readOnly) {
      return { status: 403, body: { message: '403 Forbidden - insufficient_scope' } };
    }
    const text = (request.body as { body?: unknown } | undefined)?.body;
    if (typeof text !== 'string' || text.length === 0) {
      return { status: 400, body: { message: { note: ["can't be blank"] } } };
    }
    if (text.length > NOTE_LIMIT) {
      return {
        status: 400,
        body: { message: { note: ['is too long (maximum is 1000000 characters)'] } },
      };
    }
    if (request.method === 'POST' && notes[3] === undefined) {
      const note = { id: this.#nextId++, body: text, system: false };
      this.notes.push(note);
      return { status: 201, body: note };
    }
    if (request.method === 'PUT' && notes[3] !== undefined) {
      const note = this.notes.find((n) => n.id === Number(notes[3]));
      if (!note) return { status: 404, body: { message: '404 Not found' } };
      if (note.system) return { status: 403, body: { message: '403 Forbidden' } };
      note.body = text;
      return { status: 200, body: note };
    }
    return { status: 405, body: { message: '405 Method Not Allowed' } };
  }

  #list(query: URLSearchParams): Reply {
    const perPage = Math.min(Number(query.get('per_page') ?? 20), 100);
    const page = Number(query.get('page') ?? 1);
    const ordered = query.get('sort') === 'asc' ? this.notes : [...this.notes].reverse();
    const slice = ordered.slice((page - 1) * perPage, page * perPage);
    const more = page * perPage < ordered.length;
    return {
      status: 200,
      headers: { 'x-next-page': more ? String(page + 1) : '', 'x-page': String(page) },
      body: slice,
    };
  }
}
