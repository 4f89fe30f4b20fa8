import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { OwnError } from '../../contract/error-texts.js';
import { Paths } from '../../contract/paths.js';
import type { EventPage, StoredEvent } from '../../contract/readback.js';
import type { TestAccount, TestServer } from './server.js';
import { tempDir } from './test-database.js';

/**
 * A file system of a few megabytes that a test can fill up: a tmpfs mounted on a temporary
 * directory. Mounting needs root (CI runs as root); elsewhere the tests that need one are skipped
 * with one visible line, and with CI set a failed mount fails them instead.
 */

const canMount = process.getuid?.() === 0;
if (!canMount && process.env.CI) {
  throw new Error('CI is set but the tests do not run as root: a tmpfs cannot be mounted');
}
let warned = false;

/** Loop devices and the tools to make a file system on one (mountFailingDisk). */
const hasLoopDevices =
  existsSync('/dev/loop-control') &&
  ['losetup', 'mkfs.ext4'].every(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0,
  );

/**
 * `describe` for tests on a disk whose flushes fail: skipped, with a reason, where it cannot be
 * made (not root, no loop devices); with CI set, run anyway, so that a missing part fails them.
 */
export function describeOnFailingDisk(name: string, tests: () => void): void {
  const can = canMount && hasLoopDevices;
  if (!can && !process.env.CI) {
    process.stderr.write('Failed-flush tests skipped: they need root and loop devices\n');
  }
  describe.skipIf(!can && !process.env.CI)(name, tests);
}

/** `describe` for tests on a small file system: skipped, with a reason, where none can be mounted. */
export function describeOnSmallFilesystem(name: string, tests: () => void): void {
  if (!canMount && !warned) {
    warned = true;
    process.stderr.write('Full-disk tests skipped: mounting a tmpfs needs root\n');
  }
  describe.skipIf(!canMount)(name, tests);
}

export interface SmallFilesystem {
  dir: string;
  /** Writes a file until the file system has not one byte left; returns its path. */
  fill(): string;
  unmount(): void;
}

export function mountSmallFilesystem(megabytes: number): SmallFilesystem {
  const dir = tempDir();
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', dir]);
  return {
    dir,
    fill() {
      const path = join(dir, 'filler');
      const fd = openSync(path, 'a');
      try {
        for (const size of [1 << 20, 1 << 12, 1]) {
          const chunk = Buffer.alloc(size);
          for (;;) {
            try {
              writeSync(fd, chunk);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
              throw error;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
      return path;
    },
    unmount() {
      execFileSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface FailingDisk {
  dir: string;
  /**
   * Fills the memory the disk's blocks live in: from then on, writes land in the page cache as
   * before, and a flush of any that needs a block not yet backed fails (ENOSPC from the device).
   */
  exhaust(): void;
  unmount(): void;
}

/**
 * A disk whose flushes can be made to fail, as a thin-provisioned volume's do when its pool runs
 * out: ext4 on a loop device whose image is a sparse file on a small tmpfs (`mountSmallFilesystem`).
 * `write` keeps succeeding (ext4 itself has room); `fdatasync` reports the device's error. Needs
 * root and loop devices, like the tmpfs.
 */
export function mountFailingDisk(): FailingDisk {
  const backing = mountSmallFilesystem(24);
  const image = join(backing.dir, 'disk.img');
  execFileSync('truncate', ['-s', '64M', image]);
  const device = execFileSync('losetup', ['-f', '--show', image], { encoding: 'utf8' }).trim();
  const dir = tempDir();
  try {
    execFileSync('mkfs.ext4', ['-q', '-F', '-O', '^has_journal', device]);
    execFileSync('mount', ['-o', 'errors=continue', device, dir]);
  } catch (error) {
    execFileSync('losetup', ['-d', device]);
    backing.unmount();
    throw error;
  }
  return {
    dir,
    exhaust: () => void backing.fill(),
    unmount() {
      execFileSync('umount', ['-l', dir]);
      execFileSync('losetup', ['-d', device]);
      rmSync(dir, { recursive: true, force: true });
      backing.unmount();
    },
  };
}

/** The answer to a write (or /healthz) while the disk is full: 503, the reason, Retry-After. */
export function expectStorageFull(res: LightMyRequestResponse | undefined): void {
  expect({
    status: res?.statusCode,
    body: res?.json(),
    retryAfter: res?.headers['retry-after'],
  }).toEqual({ status: 503, body: { error: OwnError.storageFull }, retryAfter: '30' });
}

/** The events of a project, as the API reads them back (newest first, up to 200). */
export async function storedEvents(server: TestServer, me: TestAccount): Promise<StoredEvent[]> {
  const res = await server.call('GET', `${Paths.getEvents}?projectId=${me.projectId}&limit=200`, {
    key: me.apiKey,
  });
  return (res.json() as EventPage).events;
}
