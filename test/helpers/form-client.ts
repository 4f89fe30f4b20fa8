import type { LightMyRequestResponse } from 'fastify';
import type { TestServer } from './server.js';

/**
 * A browser without a browser: keeps cookies between requests, reads a form's CSRF token from the
 * page, and posts forms as `application/x-www-form-urlencoded`. Redirects are not followed, so
 * tests see them.
 */
export class FormClient {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page read. */
  csrf = '';

  constructor(
    private readonly server: TestServer,
    private readonly headers: Record<string, string> = {},
  ) {}

  async get(url: string): Promise<LightMyRequestResponse> {
    const res = await this.server.app.inject({ method: 'GET', url, headers: this.#headers() });
    this.#remember(res);
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
    if (token) this.csrf = token;
    return res;
  }

  /** Posts `fields` (qs-style names allowed), with the last page's CSRF token unless given. */
  async post(
    url: string,
    fields: Record<string, string | string[]> = {},
    options: { csrf?: string | null } = {},
  ): Promise<LightMyRequestResponse> {
    const form = new URLSearchParams();
    const token = options.csrf === undefined ? this.csrf : options.csrf;
    if (token !== null) form.append('_csrf', token);
    for (const [name, value] of Object.entries(fields)) {
      for (const one of Array.isArray(value) ? value : [value]) form.append(name, one);
    }
    const res = await this.server.app.inject({
      method: 'POST',
      url,
      headers: { ...this.#headers(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
    });
    this.#remember(res);
    return res;
  }

  /** Signs in with `apiKey` the way the sign-in page does. */
  async signIn(apiKey: string): Promise<LightMyRequestResponse> {
    const page = `${this.server.config.basePath}/dashboard/sign-in`;
    await this.get(page);
    return this.post(page, { api_key: apiKey });
  }

  #headers(): Record<string, string> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return { accept: 'text/html', ...this.headers, ...(cookie ? { cookie } : {}) };
  }

  #remember(res: LightMyRequestResponse): void {
    for (const cookie of res.cookies as {
      name: string;
      value: string;
      expires?: Date;
      maxAge?: number;
    }[]) {
      const gone = cookie.maxAge === 0 || (cookie.expires && cookie.expires.getTime() < Date.now());
      if (gone || cookie.value === '') this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
  }
}
