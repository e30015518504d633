import { sql, type SQL } from 'drizzle-orm';
import { createPgDatabase, type Database, type Db, type ReplicaState, type ReplicaStatus } from './client.js';

export type { ReplicaState, ReplicaStatus } from './client.js';

/**
 * Where catalogue reads go when DATABASE_REPLICA_URL is set (docs/scaling.md): a `Db` whose statements run on the
 * streaming replica when it has replayed every commit the primary had flushed when the statement was asked for, and on
 * the primary otherwise. Transactions always run on the primary.
 */
export interface ReadReplica extends Db {
  status(): ReplicaStatus;
  close(): Promise<void>;
}

export interface ReplicaOptions {
  url: string;
  /** the longest a read waits for the replica to replay the primary's commits, and the lag past which it is skipped */
  maxLagMs: number;
  /** how often the replica is checked (state, lag; back in use after it recovers) */
  checkMs?: number;
  poolMax: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  /** told each time the state changes, with the reason when it is an error (logs) */
  onState?: (state: ReplicaState, why?: string) => void;
}

/** A pg_lsn text ('16/B374D848') as one number. */
export function lsnValue(text: string): bigint {
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A call of `fn` shared by every caller that asked while it was not yet sent: each caller gets an answer from a call
 * sent after it asked (a fence must not predate the request it guards), and concurrent callers share one round trip.
 */
function sharedFresh<T>(fn: () => Promise<T>): () => Promise<T> {
  let waiting: Promise<T> | undefined;
  let sent: Promise<unknown> = Promise.resolve();
  return () => {
    waiting ??= sent.then(() => {
      waiting = undefined;
      const call = fn();
      sent = call.catch(() => {});
      return call;
    });
    return waiting;
  };
}

/**
 * Read-your-writes on a replica by fence (docs/decisions.md): a statement first takes the primary's flushed WAL position
 * (every commit acknowledged before the request is at or below it), then runs on the replica only once the replica has
 * replayed past it, waiting at most `maxLagMs`; otherwise, or on any error from the replica, on the primary. So an
 * order's reservation shows in the very next browse on any instance, replica or not. A check every `checkMs` keeps the
 * state: a replica down or lagging past the bound is skipped (its reads go to the primary at once) until it recovers.
 */
export function createReadReplica(primary: Database, opts: ReplicaOptions): ReadReplica {
  const replica = createPgDatabase({
    url: opts.url,
    poolMax: opts.poolMax,
    statementTimeoutMs: opts.statementTimeoutMs,
    // a replica that does not answer must not hold a browse long: the primary answers instead
    connectTimeoutMs: Math.min(opts.connectTimeoutMs, 2000),
  });
  let state: ReplicaState = 'down'; // until the first check finds it
  let lagMs: number | null = null;
  let replayed = -1n; // the highest replay position seen; replay only moves forward
  let caughtUpAt = Date.now();
  const reads = { replica: 0, primary: 0 };
  let told = false;
  const become = (next: ReplicaState, lag: number | null, err?: unknown) => {
    lagMs = lag;
    if (next === state && told) return;
    state = next;
    told = true; // the first check's finding is told, even when it is 'down'
    opts.onState?.(next, err instanceof Error ? err.message : undefined);
  };

  const fence = sharedFresh(async () => {
    const [row] = await primary.query<{ lsn: string }>(sql`SELECT pg_current_wal_flush_lsn()::text AS lsn`, 'replica_fence');
    return lsnValue(row.lsn);
  });
  let replayCheck: Promise<void> | undefined;
  const readReplay = () =>
    (replayCheck ??= replica
      // a promoted standby keeps its last replay position: only one still in recovery counts
      .query<{ lsn: string | null }>(sql`SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()::text END AS lsn`, 'replica_replayed')
      .then(([row]) => {
        if (!row?.lsn) throw new Error('DATABASE_REPLICA_URL names a server that is not a standby');
        const lsn = lsnValue(row.lsn);
        if (lsn > replayed) replayed = lsn;
      })
      .finally(() => (replayCheck = undefined)));

  /** True once the replica has replayed up to `lsn`; false at `deadline`. Throws what the replica throws. */
  async function replayedTo(lsn: bigint, deadline: number): Promise<boolean> {
    while (replayed < lsn) {
      if (Date.now() >= deadline) return false;
      await readReplay();
      if (replayed < lsn) await sleep(1);
    }
    return true;
  }

  async function check(): Promise<void> {
    const started = Date.now();
    let lsn: bigint;
    try {
      lsn = await fence();
    } catch {
      return; // the primary is away: nothing to learn about the replica now
    }
    try {
      await readReplay(); // always a round trip: a dead replica is found even when nothing was written
      if (await replayedTo(lsn, started + opts.maxLagMs)) {
        caughtUpAt = started;
        become('in_use', Date.now() - started);
      } else {
        become('lagging', Date.now() - caughtUpAt);
      }
    } catch (err) {
      become('down', null, err);
    }
  }

  let checking: Promise<void> | undefined;
  const tick = () => {
    checking ??= check().finally(() => (checking = undefined));
  };
  tick();
  const timer = setInterval(tick, opts.checkMs ?? 1000);
  timer.unref();

  async function query<T>(statement: SQL, name?: string): Promise<T[]> {
    if (state === 'in_use') {
      const started = Date.now();
      const lsn = await fence(); // the primary's errors are the request's, as without a replica
      try {
        if (await replayedTo(lsn, started + opts.maxLagMs)) {
          const rows = await replica.query<T>(statement, name);
          reads.replica++;
          return rows;
        }
        become('lagging', Date.now() - caughtUpAt); // until the next check finds it caught up
      } catch (err) {
        become('down', null, err);
      }
    }
    reads.primary++;
    return primary.query<T>(statement, name);
  }

  return {
    kind: 'pg',
    query,
    tx: (fn) => primary.tx(fn),
    status: () => ({ state, lagMs, reads: { ...reads } }),
    async close() {
      clearInterval(timer);
      await checking;
      await replica.close();
    },
  };
}
