import { describe, expect, it } from 'vitest';
import { SpecError } from '../../contract/error-texts.js';
import { withoutIssues } from '../helpers/issues.js';
import { eachTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let me: TestAccount;

const toggle = (headers: Record<string, string> = {}, body?: string) =>
  server.call('POST', '/pagesite/toggle-site-visibility', { key: me.apiKey, headers, body });
const update = (body: unknown) =>
  server.call('POST', '/pagesite/update-site-configuration', { key: me.apiKey, body });
const read = async () =>
  (await server.call('GET', '/pagesite/get-site-configuration', { key: me.apiKey })).json();

// The races below need one key's requests to run at once: no rate limit (they have their own
// tests, rate-limits.test.ts) and no cap on its requests in progress (key-concurrency.test.ts).
eachTestServer((started) => ({ server, me } = started), {
  RATE_LIMIT_OTHER_PER_MINUTE: '0',
  RATE_LIMIT_OTHER_CONCURRENCY: '0',
});

describe('E3 toggle visibility', () => {
  it('a new site is hidden; each call flips it', async () => {
    expect((await read()).visibility).toBe(false);
    expect((await toggle()).json()).toEqual({ success: true, newStatus: true });
    expect((await toggle()).json()).toEqual({ success: true, newStatus: false });
    expect((await toggle()).json()).toEqual({ success: true, newStatus: true });
    expect((await read()).visibility).toBe(true);
  });

  it('accepts an empty body with and without Content-Type: application/json', async () => {
    const withType = await toggle({ 'content-type': 'application/json' }, '');
    expect(withType.statusCode).toBe(200);
    const withTypeAndCharset = await toggle(
      { 'content-type': 'application/json; charset=utf-8' },
      '',
    );
    expect(withTypeAndCharset.statusCode).toBe(200);
    const withoutType = await toggle();
    expect(withoutType.statusCode).toBe(200);
    expect(withoutType.json()).toEqual({ success: true, newStatus: true });
  });

  it('accepts {} but refuses a body with fields, without flipping', async () => {
    expect((await toggle({ 'content-type': 'application/json' }, '{}')).json()).toEqual({
      success: true,
      newStatus: true,
    });
    const refused = await toggle({ 'content-type': 'application/json' }, '{"visibility":false}');
    expect({ status: refused.statusCode, body: withoutIssues(refused.json()) }).toEqual({
      status: 400,
      body: { error: SpecError.invalidBody },
    });
    expect((await read()).visibility).toBe(true);
  });

  it('concurrent flips are never lost (over real HTTP)', async () => {
    const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const flips = 101;
    const results = await Promise.all(
      Array.from({ length: flips }, () =>
        fetch(`${url}/pagesite/toggle-site-visibility`, {
          method: 'POST',
          headers: { 'x-api-key': me.apiKey },
        }).then((res) => res.json() as Promise<{ newStatus: boolean }>),
      ),
    );
    // Each answer is a distinct state: 51 of one value, 50 of the other, ending visible.
    expect(results.filter((r) => r.newStatus).length).toBe(51);
    expect((await read()).visibility).toBe(true);
  });
});

describe('E4 update site configuration', () => {
  it('a partial update keeps absent fields and returns the whole site', async () => {
    const first = await update({
      bio: 'Hello',
      avatar_url: 'https://img.example/a.png',
      mood: '🙂',
    });
    expect(first.statusCode).toBe(200);
    const res = await update({ mood: '🚀' });
    expect(res.json()).toEqual({
      success: true,
      site: {
        bio: 'Hello',
        avatar_url: 'https://img.example/a.png',
        location: null,
        mood: '🚀',
        theme_id: null,
        visibility: false,
        blocks: [],
      },
    });
    expect(await read()).toEqual(res.json().site);
  });

  it('null clears a field; an empty bio is kept as empty', async () => {
    await update({ bio: 'x', location: 'Berlin' });
    const res = await update({ bio: '', location: null });
    expect(res.json().site).toMatchObject({ bio: '', location: null });
  });

  it('blocks replace the whole list; known ids are kept, others get new UUIDs', async () => {
    const first = await update({
      blocks: [
        { type: 'text', content: 'one', enabled: true },
        { type: 'link', content: 'https://example.com', enabled: false },
      ],
    });
    const [one, two] = first.json().site.blocks;
    expect(one).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'text',
      content: 'one',
      enabled: true,
    });
    expect(two.enabled).toBe(false);

    const second = await update({
      blocks: [
        { id: two.id, type: 'link', content: 'https://example.org', enabled: true },
        { id: 'made-up', type: 'text', content: 'new' },
        { id: two.id, type: 'text', content: 'duplicate id' },
      ],
    });
    const blocks = second.json().site.blocks;
    expect(blocks.map((b: { content: string }) => b.content)).toEqual([
      'https://example.org',
      'new',
      'duplicate id',
    ]);
    expect(blocks[0].id).toBe(two.id);
    expect(blocks[1].id).not.toBe('made-up');
    expect(blocks[2].id).not.toBe(two.id);
    expect(blocks[1].enabled).toBe(true);
    expect(new Set(blocks.map((b: { id: string }) => b.id)).size).toBe(3);
    expect((await read()).blocks).toEqual(blocks);
  });

  it('a block id of another account is not taken over', async () => {
    const other = await server.account();
    const theirs = await server.call('POST', '/pagesite/update-site-configuration', {
      key: other.apiKey,
      body: { blocks: [{ type: 'text', content: 'theirs' }] },
    });
    const theirId = theirs.json().site.blocks[0].id;
    const mine = await update({ blocks: [{ id: theirId, type: 'text', content: 'mine' }] });
    expect(mine.json().site.blocks[0].id).not.toBe(theirId);
  });

  it('visibility is not changed by E4', async () => {
    await toggle();
    expect((await update({ bio: 'b' })).json().site.visibility).toBe(true);
  });

  const invalid: [string, unknown][] = [
    ['a javascript: link', { blocks: [{ type: 'link', content: 'javascript:alert(1)' }] }],
    ['a relative link', { blocks: [{ type: 'link', content: '/about' }] }],
    ['an unknown block type', { blocks: [{ type: 'image', content: 'x' }] }],
    ['a block without content', { blocks: [{ type: 'text' }] }],
    ['101 blocks', { blocks: Array.from({ length: 101 }, () => ({ type: 'text', content: 'x' })) }],
    ['block content over 2000', { blocks: [{ type: 'text', content: 'x'.repeat(2001) }] }],
    ['bio over 1000', { bio: 'x'.repeat(1001) }],
    ['location over 100', { location: 'x'.repeat(101) }],
    ['mood over 32', { mood: 'x'.repeat(33) }],
    ['theme_id over 64', { theme_id: 'x'.repeat(65) }],
    ['a non-http avatar', { avatar_url: 'ftp://example.com/a.png' }],
    ['a relative avatar', { avatar_url: 'a.png' }],
    ['an avatar over 2048', { avatar_url: `https://example.com/${'a'.repeat(2030)}` }],
    ['a number as bio', { bio: 5 }],
    ['an unknown field', { visibility: true }],
    ['an array body', [{ bio: 'x' }]],
    ['no body', undefined],
  ];

  it.each(invalid)('%s is 400 and changes nothing', async (_name, body) => {
    await update({ bio: 'before', blocks: [{ type: 'text', content: 'kept' }] });
    const before = await read();
    const res = await update(body);
    expect(res.statusCode).toBe(400);
    expect(withoutIssues(res.json())).toEqual({ error: SpecError.invalidBody });
    expect(await read()).toEqual(before);
  });

  it('limits are inclusive', async () => {
    const res = await update({
      bio: 'x'.repeat(1000),
      location: 'x'.repeat(100),
      mood: 'x'.repeat(32),
      theme_id: 'x'.repeat(64),
      avatar_url: `https://example.com/${'a'.repeat(2048 - 20)}`,
      blocks: Array.from({ length: 100 }, () => ({ type: 'text', content: 'x'.repeat(2000) })),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().site.blocks).toHaveLength(100);
  });
});
