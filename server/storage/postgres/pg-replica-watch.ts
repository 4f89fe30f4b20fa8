import type { ReplicaStatus } from '../read-routing/replica-status.js';
import type { Sql } from './pg-database.js';

/** A PostgreSQL LSN (`16/B374D848`) as one number. */
const lsnOf = (text: string) => {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
};

/** Samples kept while the replica is behind all of them (a quarter of an hour at 1 s). */
const MAX_SAMPLES = 900;

interface Sample {
  /** When the primary was asked (before it answered). */
  at: number;
  /** Its WAL insert position then: every commit acknowledged before `at` is at or below it. */
  lsn: bigint;
}

/**
 * How far a streaming replica is behind its primary, checked on a short interval rather than per
 * request: each check asks the primary for its WAL insert position (a sample, kept with the time
 * it was asked) and the replica for the position it has replayed. The newest sample the replica
 * has replayed past gives `replayedThrough`: every commit acknowledged before that time is
 * visible on the replica. This compares positions only, so it needs no agreement between the
 * machines' clocks, and an idle primary does not look like lag (as `now() -
 * pg_last_xact_replay_timestamp()` would).
 */
export class ReplicaWatch {
  private samples: Sample[] = [];
  private replayedThroughAt = Number.NEGATIVE_INFINITY;
  private lastCheckAt = Number.NEGATIVE_INFINITY;
  private state: ReplicaStatus['state'] = 'starting';
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly primary: Sql,
    private readonly replica: Sql,
    private readonly maxLagMs: number,
    /** How often to check: a quarter of the limit, at most a second. */
    private readonly everyMs = Math.min(1000, maxLagMs / 4),
    private readonly onChange: (status: ReplicaStatus) => void = () => {},
  ) {}

  /** Checks once now, then on the interval. */
  async start(): Promise<void> {
    await this.check();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.checking;
  }

  /**
   * Whether a read may go to the replica now: it answered its last check and is within the lag
   * limit as of now (the lag grows between checks: a check that is late counts against it).
   * `since`: the read must also see every commit acknowledged from that time on.
   */
  usable(since = Number.NEGATIVE_INFINITY, now = Date.now()): boolean {
    return (
      this.state === 'ok' &&
      now - this.replayedThroughAt <= this.maxLagMs &&
      this.replayedThroughAt >= since
    );
  }

  /** A read found the replica unreachable: reads go to the primary until a check succeeds. */
  down(): void {
    this.set('down');
  }

  status(): ReplicaStatus {
    const lag = this.lastCheckAt - this.replayedThroughAt;
    return {
      reads: this.usable() ? 'replica' : 'primary',
      state: this.state,
      lagSeconds: this.state === 'ok' || this.state === 'lagging' ? lag / 1000 : null,
    };
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(async () => {
      await this.check();
      this.schedule();
    }, this.everyMs);
    this.timer.unref();
  }

  private check(): Promise<void> {
    this.checking = this.measure().then(
      (state) => this.set(state),
      () => this.set('down'),
    );
    return this.checking;
  }

  private async measure(): Promise<ReplicaStatus['state']> {
    const at = Date.now();
    // The primary away is not the replica's fault: its state stays, and its lag grows with time.
    const primary = await this.primary<{ lsn: string }[]>`
      SELECT pg_current_wal_insert_lsn()::text AS lsn`.then(
      ([row]) => row,
      () => undefined,
    );
    if (primary === undefined) return this.state;
    const [replica] = await this.replica<{ replay: string | null }[]>`
      SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()::text END AS replay`;
    if (replica?.replay == null) return 'not-standby';
    this.samples.push({ at, lsn: lsnOf(primary.lsn) });
    // A replica that never catches up would keep every sample: the oldest go (its time stays).
    if (this.samples.length > MAX_SAMPLES) this.samples.shift();
    const replay = lsnOf(replica.replay);
    // The newest sample replayed past; older ones are no longer needed, but one is kept so that
    // a replica that stops replaying keeps its time and its lag grows.
    let newest = -1;
    for (let i = this.samples.length - 1; i >= 0; i--) {
      if ((this.samples[i] as Sample).lsn <= replay) {
        newest = i;
        break;
      }
    }
    if (newest >= 0) {
      this.replayedThroughAt = (this.samples[newest] as Sample).at;
      this.samples = this.samples.slice(newest);
    }
    this.lastCheckAt = at;
    return at - this.replayedThroughAt <= this.maxLagMs ? 'ok' : 'lagging';
  }

  private set(state: ReplicaStatus['state']): void {
    if (state === this.state) return;
    this.state = state;
    this.onChange(this.status());
  }
}
