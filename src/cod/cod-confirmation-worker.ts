import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { pollLoop } from '../lib/poll-loop.js';
import { claimOverdueCodConfirmation, findOverdueCodConfirmations, type OverdueConfirmation } from '../orders/cod-confirmation.queries.js';
import type { CodConfirmationService } from './cod-confirmation.service.js';

/** It shares the checkout expiry worker's poll interval (docs/decisions.md). */
export type CodConfirmationWorkerConfig = Pick<Config, 'CHECKOUT_EXPIRY_POLL_MS'>;

interface WorkerLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Where the worker's own code failed: reading the overdue confirmations, or settling one of them. */
export type CodConfirmationWorkerStage = 'poll' | 'order';

/** Orders read per poll; each is settled in a short transaction of its own. */
const BATCH = 20;

/**
 * The COD confirmation time limit of one service process (modelled on the checkout expiry worker): a pending
 * confirmation past its due time, of a company whose on_timeout is 'cancel', is declined by `timeout` and its order
 * cancelled (stock released) as a buyer's decline would. A poll reads, without locks, up to BATCH of them (the named
 * cross-company read `cod.overdue-confirmations`); each is then settled in its own transaction, its order row claimed
 * with SKIP LOCKED while still pending and overdue: an order someone else holds (the buyer answering, staff moving it,
 * another instance) is skipped and read again at a later poll if still due. Those a company leaves to staff stay
 * pending and are listed by `orders attention`. A failure is logged and left for the next poll; nothing a poll does
 * ends the process (src/lib/poll-loop.ts).
 */
export function createCodConfirmationWorker(deps: {
  db: Db;
  config: CodConfirmationWorkerConfig;
  confirmations: Pick<CodConfirmationService, 'settleIn'>;
  log: WorkerLog;
  onError?: (stage: CodConfirmationWorkerStage) => void;
}) {
  const { db, config, confirmations, log } = deps;

  /** Declines one overdue confirmation: true when this call settled it. */
  async function decline(o: OverdueConfirmation): Promise<boolean> {
    return db.tx(async (tx) => {
      if (!(await claimOverdueCodConfirmation(tx, o.company_id, o.id))) return false;
      return (await confirmations.settleIn(tx, o.company_id, o.id, 'declined', 'timeout')).result === 'settled';
    });
  }

  /** Settles one batch; true when it was full and made progress (the loop then reads the next one at once). */
  async function runOnce(): Promise<boolean> {
    const due = await findOverdueCodConfirmations(db, BATCH);
    let settled = 0;
    for (const o of due) {
      try {
        if (!(await decline(o))) continue;
        settled++;
        log.info({ company: o.company_id, order: o.order_number }, 'COD confirmation timed out: the order was cancelled and its stock released');
      } catch (err) {
        deps.onError?.('order');
        log.error({ company: o.company_id, order: o.order_number, err }, 'COD confirmation time limit failed; tried again at the next poll');
      }
    }
    return due.length === BATCH && settled > 0;
  }

  const poller = pollLoop({
    pollMs: config.CHECKOUT_EXPIRY_POLL_MS,
    runOnce,
    onError: (err) => {
      deps.onError?.('poll');
      log.error({ err }, `COD confirmation worker: poll failed; polling again in ${config.CHECKOUT_EXPIRY_POLL_MS} ms`);
    },
  });

  return {
    runOnce,
    start: () => poller.start(),
    /** Stops polling and waits for the batch in flight (short transactions) to end. */
    stop: () => poller.stop(),
  };
}

export type CodConfirmationWorker = ReturnType<typeof createCodConfirmationWorker>;
