import { nextDigestAt } from '../../domain/channels/digest-schedule.js';
import { newRecordId } from '../../domain/ids.js';
import type { Storage } from '../../storage/storage.js';
import type { Logger } from '../logger.js';

/** Digests queued per look at most; the rest at the next look. */
const BATCH = 100;
/** How often it looks for due digests: a digest goes within a minute of its time. */
export const DIGEST_LOOK_MS = 30_000;

/**
 * Queues each channel's digest when it is due, through the outbox (so it is sent, paced in the
 * channel's lane, and retried like any message): taking a due digest moves the channel's next
 * due time in the same transaction as the job is queued, and only if it was still the one read,
 * so with several replicas each digest is queued once. A server that was stopped over several
 * due times sends one digest for the first it missed, then goes on from now.
 */
export function digestScheduler(storage: Storage, log: Logger, now: () => number = Date.now) {
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<number> | undefined;

  async function look(at: number): Promise<number> {
    let queued = 0;
    for (const due of await storage.channels.dueDigests(at, BATCH)) {
      const channel = await storage.channels.get(due.id);
      if (!channel) continue;
      const next = channel.rules.digest ? nextDigestAt(channel.rules.digest, at) : null;
      const taken = await storage.transaction(async (tx) => {
        if (!(await tx.channels.takeDigest(due.id, due.dueAt, next))) return false;
        if (channel.rules.digest) {
          await tx.outbox.enqueue({
            kind: 'channel-digest',
            channelId: due.id,
            messageId: `msg_${newRecordId()}`,
            dueAt: due.dueAt,
          });
        }
        return true;
      });
      if (taken && channel.rules.digest) queued += 1;
    }
    return queued;
  }

  return {
    /** Queues the digests due at `at` (now); resolves with how many (one look at a time). */
    async tick(at: number = now()): Promise<number> {
      while (looking) await looking.catch(() => undefined);
      looking = look(at);
      try {
        return await looking;
      } finally {
        looking = undefined;
      }
    },
    start(): void {
      const turn = () =>
        void this.tick().catch((error) => log.error({ err: error }, 'digest look failed'));
      timer = setInterval(turn, DIGEST_LOOK_MS).unref();
      turn();
    },
    async stop(): Promise<void> {
      clearInterval(timer);
      await looking?.catch(() => undefined);
    },
  };
}

export type DigestScheduler = ReturnType<typeof digestScheduler>;
