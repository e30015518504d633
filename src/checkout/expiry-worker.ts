import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { pollLoop } from '../lib/poll-loop.js';
import { releaseReservations } from '../orders/reservations.js';
import { cancelCheckout, claimExpiredCheckout, findExpiredCheckouts, type ExpiredCheckout } from './checkout-expiry.queries.js';

export type ExpiryWorkerConfig = Pick<Config, 'CHECKOUT_EXPIRY_POLL_MS'>;

interface WorkerLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Where the worker's own code failed: reading the due sessions, or expiring one of them. */
export type ExpiryWorkerStage = 'poll' | 'session';

/** Sessions read per poll; each is expired in a short transaction of its own. */
const BATCH = 20;

/**
 * The checkout expiry worker of one service process: open sessions past expires_at give their held stock back. A poll
 * reads, without locks, up to BATCH of them (the named cross-company read `checkout.expired-sessions`: with none due,
 * that one indexed query is the poll's whole cost). Each is then expired in its own transaction, in the lock order of
 * everyone touching a session (checkout row, then stock rows): its row locked with SKIP LOCKED while still open and
 * expired, its holds released, its status `canceled`. A session locked by someone else (being completed or changed,
 * or expired by another instance) is skipped, and read again at a later poll if still due. A session that fails is
 * logged and left for the next poll; the others go on, and nothing a poll does ends the process (src/lib/poll-loop.ts).
 */
export function createCheckoutExpiryWorker(deps: {
  db: Db;
  config: ExpiryWorkerConfig;
  /** The service's logger (a child of it), as the other workers have. */
  log: WorkerLog;
  /** An error in the worker (metrics); the session is tried again at the next poll. */
  onError?: (stage: ExpiryWorkerStage) => void;
}) {
  const { db, config, log } = deps;

  /** Expires one session: the holds it released, or undefined when it was no longer due or someone else holds it. */
  async function expire(s: ExpiredCheckout): Promise<number | undefined> {
    return db.tx(async (tx) => {
      if (!(await claimExpiredCheckout(tx, s.company_id, s.id))) return undefined;
      const released = await releaseReservations(tx, { companyId: s.company_id, checkoutId: s.id });
      await cancelCheckout(tx, s.company_id, s.id);
      return released;
    });
  }

  /** Expires one batch; true when it was full and made progress (the loop then reads the next one at once). */
  async function runOnce(): Promise<boolean> {
    const due = await findExpiredCheckouts(db, BATCH);
    let expired = 0;
    for (const s of due) {
      try {
        const released = await expire(s);
        if (released === undefined) continue;
        expired++;
        log.info({ company: s.company_id, checkout: s.id, released }, 'checkout expired: its held stock was released');
      } catch (err) {
        deps.onError?.('session');
        log.error({ company: s.company_id, checkout: s.id, err }, 'checkout expiry failed; tried again at the next poll');
      }
    }
    return due.length === BATCH && expired > 0;
  }

  const poller = pollLoop({
    pollMs: config.CHECKOUT_EXPIRY_POLL_MS,
    runOnce,
    onError: (err) => {
      deps.onError?.('poll');
      log.error({ err }, `checkout expiry worker: poll failed; polling again in ${config.CHECKOUT_EXPIRY_POLL_MS} ms`);
    },
  });

  return {
    runOnce,
    start: () => poller.start(),
    /** Stops polling and waits for the batch in flight (short transactions) to end. */
    stop: () => poller.stop(),
  };
}

export type CheckoutExpiryWorker = ReturnType<typeof createCheckoutExpiryWorker>;
