/**
 * Status lookups on a streaming replica (`DATABASE_REPLICA_URL`) without ever answering older than the
 * merchant's own writes.
 *
 * Rule: a lookup reads the replica only when the replica has replayed the primary's WAL up to a position taken
 * after the lookup arrived; otherwise (replica behind, or unreachable) it reads the primary. Every commit
 * acknowledged before the lookup arrived lies below that position, so a merchant always sees its own SALE,
 * capture or refund, and also what the workers changed before it asked (read-your-writes, and more).
 *
 * Why not a recency window ("payments changed in the last N seconds go to the primary"): a payment created an
 * hour ago and captured a moment ago looks old on a lagging replica, whose copy still carries the old change
 * time; only the WAL position knows the replica is behind. The price is one `pg_current_wal_insert_lsn()` on
 * the primary and one position read on the replica per burst of lookups, not per lookup: lookups arriving while
 * a position read is in flight share the next one (each still gets a reading taken after it arrived). Both are
 * function calls without a table, far cheaper than the lookups they move away from the primary.
 */
import { isConnectionFailure, type Sql } from './database.ts';

/** An LSN such as `16/B374D848` as a number of bytes. */
export function lsnBytes(lsn: string): bigint {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

/** Runs `sample` so that every caller gets a result of a run that started after it called. */
export class NextSample<T> {
  private running: Promise<T> | undefined;
  private queued: Promise<T> | undefined;

  constructor(private readonly sample: () => Promise<T>) {}

  next(): Promise<T> {
    if (!this.running) return this.start();
    this.queued ??= this.running.then(
      () => this.startQueued(),
      () => this.startQueued(),
    );
    return this.queued;
  }

  private startQueued(): Promise<T> {
    this.queued = undefined;
    return this.start();
  }

  private start(): Promise<T> {
    const run = this.sample();
    this.running = run;
    const clear = () => {
      if (this.running === run) this.running = undefined;
    };
    run.then(clear, clear);
    return run;
  }
}

/** Where the replica stands: replayed up to an LSN, or not in recovery at all (a primary: nothing to lag). */
type ReplicaPosition = { replayed: bigint } | 'not-a-standby';

export interface ReadRoutingCounts {
  replica: number;
  primary: number;
}

/** The Sql of status lookups: the replica when it has caught up with the lookup's arrival, else the primary. */
export class ReplicaReads implements Sql {
  readonly counts: ReadRoutingCounts = { replica: 0, primary: 0 };
  private readonly primaryPosition: NextSample<bigint>;
  private readonly replicaPosition: NextSample<ReplicaPosition>;

  constructor(private readonly primary: Sql, private readonly replica: Sql) {
    this.primaryPosition = new NextSample(async () => {
      const [row] = await primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
      return lsnBytes(row!.lsn);
    });
    this.replicaPosition = new NextSample(async () => {
      const [row] = await replica.query<{ standby: boolean; lsn: string | null }>(
        'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS lsn',
      );
      if (!row?.standby) return 'not-a-standby';
      return { replayed: row.lsn ? lsnBytes(row.lsn) : 0n };
    });
  }

  async query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<T[]> {
    if (await this.replicaHasCaughtUp()) {
      try {
        const rows = await this.replica.query<T>(text, params);
        this.counts.replica += 1;
        return rows;
      } catch (err) {
        if (!isConnectionFailure(err)) throw err;
        // The replica went away between its position and the read: the primary answers.
      }
    }
    this.counts.primary += 1;
    return this.primary.query<T>(text, params);
  }

  private async replicaHasCaughtUp(): Promise<boolean> {
    const target = await this.primaryPosition.next();
    let position: ReplicaPosition;
    try {
      position = await this.replicaPosition.next();
    } catch (err) {
      if (isConnectionFailure(err)) return false;
      throw err;
    }
    return position === 'not-a-standby' || position.replayed >= target;
  }
}
