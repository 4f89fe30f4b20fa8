import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../server/admin-cli-commands.js';
import { run } from '../helpers/process.js';

/** The admin CLI says what it can do, without a database or a configuration. */

const ADMIN = ['scripts/start.js', 'admin'];
const admin = (...args: string[]) => run([...ADMIN, ...args], {});

describe('admin CLI help', () => {
  it('npm run admin -- --help and help list every command, exit 0', async () => {
    const viaNpm = execFileSync('npm', ['run', '-s', 'admin', '--', '--help'], {
      encoding: 'utf8',
    });
    const viaHelp = await admin('help');
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaNpm);
    for (const name of Object.keys(COMMANDS)) expect(viaNpm).toContain(`  ${name}`);
    expect(viaNpm).toContain('help [command]');
  });

  it('every command has --help, the same as help <command>', async () => {
    for (const [name, command] of Object.entries(COMMANDS)) {
      const own = await admin(name, '--help');
      expect(own.code, name).toBe(0);
      expect(own.stderr).toBe('');
      expect(own.stdout).toContain(`usage: npm run -s admin -- ${name} ${command.usage}`.trim());
      expect(own.stdout).toContain(command.summary);
      expect((await admin('help', name)).stdout).toBe(own.stdout);
    }
  });

  it('an unknown command is a JSON error, the commands, and exit 2', async () => {
    const unknown = await admin('help', 'frobnicate');
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr.split('\n')[0] as string)).toEqual({
      error: 'unknown command: frobnicate',
    });
    expect(unknown.stderr).toContain('account:create');
    const none = await admin();
    expect(none.code).toBe(2);
  });
});
