import { describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import { selectRows } from '../helpers/database.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** Share links: random tokens stored as hashes, each reaching one project, revoked at once. */

let server: TestServer;
let me: TestAccount;

eachTestServer((started) => ({ server, me } = started), {
  PUBLIC_URL: 'https://stats.example.com',
});

const create = (projectId: string, key = me.apiKey) =>
  server.call('POST', Paths.createShareLink, { key, body: { projectId } });

describe('share links', () => {
  it('creates a link (shown once), lists it without its token, resolves it, revokes it', async () => {
    const res = await create(me.projectId);
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const { token, url } = res.json();
    // 256 random bits after a recognisable prefix.
    expect(token).toMatch(/^cis_share_[A-Za-z0-9_-]{43}$/);
    expect(url).toBe(`https://stats.example.com/share/${token}`);
    expect(
      JSON.stringify(await selectRows(server.database, 'SELECT * FROM share_links')),
    ).not.toContain(token);

    const listed = await server.call('GET', `${Paths.getShareLinks}?projectId=${me.projectId}`, {
      key: me.apiKey,
    });
    expect(listed.json()).toEqual({
      links: [
        { id: expect.any(String), prefix: token.slice(0, 14), created_at: expect.any(String) },
      ],
    });
    expect(listed.body).not.toContain(token);

    const { shareLinks } = server.app.services;
    expect(await shareLinks.resolve(token)).toBe(me.projectId);
    const revoked = await server.call('POST', Paths.revokeShareLink, {
      key: me.apiKey,
      body: { token },
    });
    expect({ status: revoked.statusCode, body: revoked.json() }).toEqual({
      status: 200,
      body: { success: true },
    });
    expect(await shareLinks.resolve(token)).toBeUndefined();
    expect(
      (
        await server.call('GET', `${Paths.getShareLinks}?projectId=${me.projectId}`, {
          key: me.apiKey,
        })
      ).json(),
    ).toEqual({ links: [] });
  });

  it('reaches only its own project; another account can neither create nor revoke it', async () => {
    const other = await server.account();
    const foreign = await create(other.projectId);
    expect({ status: foreign.statusCode, body: foreign.json() }).toEqual({
      status: 403,
      body: { error: SpecError.forbiddenProject },
    });
    const mine = (await create(me.projectId)).json().token;
    const theirs = (await create(other.projectId, other.apiKey)).json().token;
    expect(await server.app.services.shareLinks.resolve(mine)).toBe(me.projectId);
    expect(await server.app.services.shareLinks.resolve(theirs)).toBe(other.projectId);
    for (const token of [theirs, 'cis_share_unknown', mine.slice(0, -1)]) {
      const res = await server.call('POST', Paths.revokeShareLink, {
        key: me.apiKey,
        body: { token },
      });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 404,
        body: { error: OwnError.shareLinkNotFound },
      });
    }
    expect(await server.app.services.shareLinks.resolve(theirs)).toBe(other.projectId);
  });

  it('an ingest key may not manage share links', async () => {
    const ingest = (
      await server.call('POST', Paths.createApiKey, { key: me.apiKey, body: { scope: 'ingest' } })
    ).json().apiKey;
    const res = await create(me.projectId, ingest);
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 403,
      body: { error: OwnError.ingestOnly },
    });
  });
});
