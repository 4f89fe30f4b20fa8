import { FakeService, type RecordedRequest, type Reply } from './fake-service.js';

/**
 * GitHub's REST API as far as the verdict uses it, on 127.0.0.1 (the Action finds it through
 * GITHUB_API_URL), with GitHub's rules: a known token or 401; a fork's token (read-only) gets 403
 * on every write, a token without `checks: write` 403 on check runs; at most 50 annotations per
 * request and bodies of at most 65,536 characters (a check's summary 65,535), else 422. It keeps
 * the comments and check runs and records every request.
 */
export const TOKENS = {
  write: 'ghs_write_token_0001',
  fork: 'ghs_fork_readonly_0002',
  noChecks: 'ghs_no_checks_0003',
} as const;

export interface StoredComment {
  id: number;
  body: string;
  issue: number;
}

export interface StoredCheck {
  id: number;
  name: string;
  head_sha: string;
  conclusion: string;
  output: { title: string; summary: string };
  annotations: unknown[];
}

const COMMENT_LIMIT = 65_536;
const SUMMARY_LIMIT = 65_535;
const ANNOTATION_LIMIT = 50;

export class FakeGitHub extends FakeService {
  readonly comments: StoredComment[] = [];
  readonly checks: StoredCheck[] = [];
  /** Pull requests' head commits, by number (GET /repos/o/r/pulls/N). */
  readonly pulls = new Map<number, string>();
  #nextId = 1000;

  constructor() {
    super();
    this.script((request) => this.#answer(request));
  }

  /** The requests that were not refused, of one kind (e.g. `POST check-runs`). */
  calls(method: string, pathEnd: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.endsWith(pathEnd));
  }

  #answer(request: RecordedRequest): Reply {
    const auth = request.headers.authorization ?? '';
    const token = auth.replace(/^(token|bearer) /i, '');
    if (!(Object.values(TOKENS) as string[]).includes(token)) {
      return { status: 401, body: { message: 'Bad credentials' } };
    }
    const write = request.method !== 'GET';
    if (write && token === TOKENS.fork) {
      return { status: 403, body: { message: 'Resource not accessible by integration' } };
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    let match = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(request.path);
    if (match) {
      const issue = Number(match[1]);
      if (request.method === 'GET') return this.#list(issue, request.query);
      return this.#saveComment(undefined, issue, body.body);
    }
    match = /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(request.path);
    if (match && request.method === 'PATCH') {
      return this.#saveComment(Number(match[1]), 0, body.body);
    }
    match = /^\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)$/.exec(request.path);
    if (match && request.method === 'GET') {
      const head = this.pulls.get(Number(match[1]));
      if (head === undefined) return { status: 404, body: { message: 'Not Found' } };
      return { status: 200, body: { number: Number(match[1]), head: { sha: head } } };
    }
    match = /^\/repos\/[^/]+\/[^/]+\/check-runs(?:\/(\d+))?$/.exec(request.path);
    if (match) {
      if (token === TOKENS.noChecks) {
        return { status: 403, body: { message: 'Resource not accessible by integration' } };
      }
      return this.#saveCheck(match[1] === undefined ? undefined : Number(match[1]), body);
    }
    return { status: 404, body: { message: 'Not Found' } };
  }

  #list(issue: number, query: URLSearchParams): Reply {
    const perPage = Number(query.get('per_page') ?? 30);
    const page = Number(query.get('page') ?? 1);
    const all = this.comments.filter((c) => c.issue === issue);
    const slice = all.slice((page - 1) * perPage, page * perPage);
    const headers: Record<string, string> = {};
    if (page * perPage < all.length) {
      headers.link = `<${this.origin}/repos/o/r/issues/${issue}/comments?per_page=${perPage}&page=${page + 1}>; rel="next"`;
    }
    return { status: 200, headers, body: slice.map(({ id, body }) => ({ id, body })) };
  }

  #saveComment(id: number | undefined, issue: number, text: unknown): Reply {
    if (typeof text !== 'string' || text.length === 0) {
      return { status: 422, body: { message: 'Validation Failed: body' } };
    }
    if (text.length > COMMENT_LIMIT) {
      return {
        status: 422,
        body: { message: 'Validation Failed: body is too long (maximum is 65536 characters)' },
      };
    }
    if (id === undefined) {
      const comment = { id: this.#nextId++, body: text, issue };
      this.comments.push(comment);
      return { status: 201, body: comment };
    }
    const comment = this.comments.find((c) => c.id === id);
    if (!comment) return { status: 404, body: { message: 'Not Found' } };
    comment.body = text;
    return { status: 200, body: comment };
  }

  #saveCheck(id: number | undefined, body: Record<string, unknown>): Reply {
    const output = (body.output ?? {}) as {
      title?: string;
      summary?: string;
      annotations?: unknown[];
    };
    const annotations = output.annotations ?? [];
    if (annotations.length > ANNOTATION_LIMIT) {
      return { status: 422, body: { message: 'Only 50 annotations are allowed per request' } };
    }
    if ((output.summary ?? '').length > SUMMARY_LIMIT) {
      return { status: 422, body: { message: 'output.summary is too long' } };
    }
    if (id === undefined) {
      const check: StoredCheck = {
        id: this.#nextId++,
        name: String(body.name),
        head_sha: String(body.head_sha),
        conclusion: String(body.conclusion),
        output: { title: output.title ?? '', summary: output.summary ?? '' },
        annotations: [...annotations],
      };
      this.checks.push(check);
      return { status: 201, body: check };
    }
    const check = this.checks.find((c) => c.id === id);
    if (!check) return { status: 404, body: { message: 'Not Found' } };
    check.annotations.push(...annotations);
    if (output.summary !== undefined) check.output.summary = output.summary;
    return { status: 200, body: check };
  }
}
