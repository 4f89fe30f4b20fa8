import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OwnError, SpecError } from '../../contract/error-texts.js';
import { judgeDisplayName, sanitizeDisplayName } from '../../server/domain/display-name.js';
import { withoutIssues } from '../helpers/issues.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

describe('sanitizeDisplayName', () => {
  it.each([
    ['  Alice  ', 'alice'],
    ['Alice   Smith', 'alice-smith'],
    ['Ünïcødé Näme!', 'ncd-nme'],
    ['a--b---c', 'a-b-c'],
    ['--edge--', 'edge'],
    ['a - b', 'a-b'],
    ['tab\tand\nnewline', 'tab-and-newline'],
    ['x_y.z', 'xyz'],
  ])('%j -> %j', (raw, expected) => {
    expect(sanitizeDisplayName(raw)).toBe(expected);
  });

  it('judges length after sanitising and refuses reserved names', () => {
    expect(judgeDisplayName('ab')).toEqual({ ok: false, reason: 'length' });
    expect(judgeDisplayName('a!!!b')).toEqual({ ok: false, reason: 'length' });
    expect(judgeDisplayName('x'.repeat(33))).toEqual({ ok: false, reason: 'length' });
    expect(judgeDisplayName('x'.repeat(32))).toEqual({ ok: true, name: 'x'.repeat(32) });
    expect(judgeDisplayName('abc')).toEqual({ ok: true, name: 'abc' });
    for (const name of [
      'admin',
      'Administrator',
      'postmaster',
      'hostmaster',
      'webmaster',
      'abuse',
      'root',
      'security',
      'support',
      'noreply',
      'No Reply',
      'mailer-daemon',
    ]) {
      expect(judgeDisplayName(name)).toEqual({ ok: false, reason: 'reserved' });
    }
  });
});

describe('E5 update display name', () => {
  let server: TestServer;
  let me: TestAccount;
  const setName = (body: unknown, key = me.apiKey) =>
    server.call('POST', '/account/update-display-name', { key, body });
  const readName = async () =>
    (await server.call('GET', '/account/get-display-name', { key: me.apiKey })).json();

  beforeEach(async () => {
    server = await startTestServer();
    me = await server.account();
  });
  afterEach(() => server.close());

  it('answers the sanitised name and the alias', async () => {
    expect(await readName()).toEqual({ display_name: null, alias: null });
    const res = await setName({ display_name: '  Jane   Doe ' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      display_name: 'jane-doe',
      alias: 'jane-doe@mail.example.test',
    });
    expect(await readName()).toEqual({
      display_name: 'jane-doe',
      alias: 'jane-doe@mail.example.test',
    });
  });

  it('renames, freeing the old name for others', async () => {
    await setName({ display_name: 'first' });
    await setName({ display_name: 'second' });
    const other = await server.account();
    expect((await setName({ display_name: 'first' }, other.apiKey)).statusCode).toBe(200);
    expect((await setName({ display_name: 'second' }, other.apiKey)).statusCode).toBe(409);
  });

  it.each([
    [{}, OwnError.displayNameMissing],
    [{ display_name: 5 }, OwnError.displayNameMissing],
    [{ display_name: null }, OwnError.displayNameMissing],
    ['"jane"', OwnError.displayNameMissing],
    [undefined, OwnError.displayNameMissing],
    [{ display_name: 'ok-name', extra: true }, SpecError.invalidBody],
    [{ display_name: 'ab' }, OwnError.displayNameLength],
    [{ display_name: '!!!' }, OwnError.displayNameLength],
    [{ display_name: 'x'.repeat(33) }, OwnError.displayNameLength],
    [{ display_name: 'ADMIN' }, OwnError.displayNameReserved],
    [{ display_name: 'mailer daemon' }, OwnError.displayNameReserved],
  ])('%j is 400 with a clear message and changes nothing', async (body, error) => {
    await setName({ display_name: 'before' });
    const res = await setName(body);
    expect({ status: res.statusCode, body: withoutIssues(res.json()) }).toEqual({
      status: 400,
      body: { error },
    });
    expect((await readName()).display_name).toBe('before');
  });
});
