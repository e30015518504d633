import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { adapterName, courierAdapter, CourierError, type CourierAdapter, type CourierConfig } from '../couriers/index.js';
import { newId } from '../lib/ids.js';
import { companiesInTurn, pollLoop } from '../lib/poll-loop.js';
import { money } from '../lib/money.js';
import { recordOrderEvent } from '../orders/order-events.js';
import { claimBookingJob, findDueBookingCompanies, finishJob, handBackJob, recordJobFailure, type ClaimedJob } from './courier-jobs.queries.js';
import {
  findBookingLines,
  findCourierConfig,
  findCustomerContact,
  findShipment,
  insertShipment,
  insertShipmentEvent,
  lockOrder,
  readOrder,
} from './fulfilment.queries.js';
import { READY_TO_SHIP } from './status-rules.js';

export type WorkerConfig = Pick<
  Config,
  'FULFILMENT_POLL_MS' | 'FULFILMENT_MAX_ATTEMPTS' | 'FULFILMENT_RETRY_BASE_MS' | 'FULFILMENT_LEASE_MS' | 'COURIER_TIMEOUT_MS'
>;

interface WorkerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Where the worker's own code failed (no job outcome counts it): finding or claiming a job, or recording a failure. */
export type CourierWorkerStage = 'poll' | 'record';

const MAX_BACKOFF_MS = 60 * 60 * 1000;
/** Companies read per poll of the due list. */
const DUE_COMPANIES = 50;

/** Delay before attempt n+1 after n failed attempts: base, 2×base, 4×base… capped at an hour. */
export const backoffMs = (base: number, attempts: number) => Math.min(base * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_MS);

class Skip extends Error {}

/**
 * The courier-booking worker of one service process (transactional outbox). A poll first reads, without
 * locking anything, which companies have a due job (the named cross-company read `worker.due-companies`);
 * then a job is claimed within one company by one statement that locks it with FOR UPDATE SKIP LOCKED and
 * pushes its run_at past a lease, so no other instance sees it due while this one talks to the courier (no
 * transaction is held open over HTTP). No row lock is ever taken across companies, so under Citus every
 * claim runs on one company's shard. Companies are served in turn, a company's jobs oldest first. The
 * shipment and the job's `done` are written in one transaction. Failures are retried with exponential
 * backoff up to FULFILMENT_MAX_ATTEMPTS, then the job is `failed` for staff (`jobs list --failed`). A job
 * whose worker died stays pending and is due again when its lease runs out; stop() hands it back at once.
 */
export function createCourierWorker(deps: {
  db: Db;
  config: WorkerConfig;
  /** The service's logger (a child of it): the worker runs with the serializers of `npm start`, in tests too. */
  log: WorkerLog;
  adapterFor?: (config: CourierConfig | null) => CourierAdapter;
  /** Each job's outcome (metrics): booked, skipped, retrying or failed. */
  onOutcome?: (outcome: 'booked' | 'skipped' | 'retrying' | 'failed') => void;
  /** An error in the worker itself (metrics); the job is retried: the next poll, or once its lease runs out. */
  onError?: (stage: CourierWorkerStage) => void;
}) {
  const { db, config, log } = deps;
  const adapterFor = deps.adapterFor ?? courierAdapter;
  const workerId = newId('wkr');
  const aborter = new AbortController();

  /** Companies with a due job, oldest due first; read without locks, across companies (named in CROSS_COMPANY_QUERIES). */
  async function dueCompanies(): Promise<string[]> {
    return findDueBookingCompanies(db, DUE_COMPANIES);
  }

  /** Claims the company's oldest due job: one statement on that company's rows (SKIP LOCKED: racing workers take different jobs). */
  async function claimIn(companyId: string): Promise<ClaimedJob | undefined> {
    return claimBookingJob(db, companyId, workerId, config.FULFILMENT_LEASE_MS);
  }

  /** The next due job, companies taken in turn (src/lib/poll-loop.ts). */
  const nextDue = companiesInTurn(dueCompanies, claimIn);
  const claim = async (): Promise<ClaimedJob | undefined> => (await nextDue())?.claimed;

  /** Marks the job done in the caller's transaction, only while this worker still holds it. */
  async function finish(tx: Db, job: ClaimedJob, note: string | null): Promise<void> {
    if (!(await finishJob(tx, job, workerId, note))) throw new Error(`job ${job.id} was taken over by another worker (lease ran out)`);
  }

  async function book(job: ClaimedJob): Promise<string> {
    const { company_id: companyId, order_id: orderId } = job;
    const skip = async (why: string) => {
      await db.tx((tx) => finish(tx, job, `skipped: ${why}`));
      throw new Skip(why);
    };
    // jobs.order_id is nullable; a booking job without one has no order to find (as a lookup by NULL finds none)
    if (orderId === null) return skip('order not found');
    const order = await readOrder(db, companyId, orderId);
    if (!order) return skip('order not found');
    if (!READY_TO_SHIP[order.status]) return skip(`order is ${order.status}`);
    if (!order.delivery_address) return skip('order has no delivery address');
    if (await findShipment(db, companyId, orderId)) return skip('order already has a shipment');

    const courierConfig = (await findCourierConfig(db, companyId)) ?? null;
    const adapter = adapterFor(courierConfig);
    const [lines, customer] = await Promise.all([findBookingLines(db, companyId, orderId), findCustomerContact(db, companyId, order.customer_id)]);
    const signal = AbortSignal.any([aborter.signal, AbortSignal.timeout(config.COURIER_TIMEOUT_MS)]);
    const booking = await adapter.book(
      {
        orderNumber: order.order_number,
        orderDate: order.created_at,
        payment: order.payment,
        amount: money(order.amount),
        customerName: customer.name,
        customerPhone: customer.phone_e164,
        address: order.delivery_address,
        items: lines.map((l) => ({ sku: l.sku, name: l.name, quantity: l.quantity, unitPrice: l.unit_price })),
      },
      signal,
    );
    await db.tx(async (tx) => {
      await lockOrder(tx, companyId, orderId);
      const id = newId('shp');
      const inserted = booking
        ? await insertShipment(tx, companyId, {
            id,
            orderId,
            adapter: adapterName(adapter.name),
            courier: booking.courier,
            awb: booking.awb,
            status: 'booked',
            trackingUrl: adapter.trackingUrl(booking.awb),
            courierOrderId: booking.courierOrderId,
            courierShipmentId: booking.courierShipmentId,
          })
        : // manual: nothing is booked; the shipment waits for staff to enter AWB and courier
          await insertShipment(tx, companyId, {
            id,
            orderId,
            adapter: adapterName(adapter.name),
            courier: null,
            awb: null,
            status: 'pending',
            trackingUrl: null,
          });
      if (inserted && booking) await recordOrderEvent(tx, companyId, 'shipment.updated', orderId, new Date());
      if (inserted) {
        await insertShipmentEvent(tx, companyId, {
          id: newId('sev'),
          shipmentId: id,
          status: booking ? 'booked' : 'pending',
          source: 'worker',
          note: booking ? null : 'waiting for staff to book (manual courier)',
        });
      }
      await finish(tx, job, null);
    });
    return booking ? `booked ${booking.awb}` : 'left pending for staff (manual courier)';
  }

  async function fail(job: ClaimedJob, err: unknown): Promise<void> {
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
    if (aborter.signal.aborted) {
      // Shutting down: hand the job back now (this attempt does not count) instead of waiting out the lease.
      await handBackJob(db, job, workerId, `interrupted: ${message}`);
      return;
    }
    const permanent = err instanceof CourierError && !err.retryable;
    const final = permanent || job.attempts >= config.FULFILMENT_MAX_ATTEMPTS;
    const delay = backoffMs(config.FULFILMENT_RETRY_BASE_MS, job.attempts);
    await recordJobFailure(db, job, workerId, { final, delayMs: delay, lastError: message });
    deps.onOutcome?.(final ? 'failed' : 'retrying');
    log[final ? 'error' : 'warn'](
      { job: job.id, order: job.order_id, attempts: job.attempts, err },
      final ? 'courier booking failed; staff must act' : `courier booking failed; retrying in ${delay} ms`,
    );
  }

  /** The failure could not be written (database gone): the job stays claimed and is due again when its lease runs out. */
  function failedToRecord(job: ClaimedJob, err: unknown): void {
    deps.onError?.('record');
    log.error(
      { job: job.id, order: job.order_id, err },
      `courier booking: the failure could not be recorded; retried once its lease runs out (${config.FULFILMENT_LEASE_MS} ms)`,
    );
  }

  /** Claims and performs one due job; false when none was due. */
  async function runOnce(): Promise<boolean> {
    const job = await claim();
    if (!job) return false;
    try {
      const outcome = await book(job);
      deps.onOutcome?.('booked');
      log.info({ job: job.id, order: job.order_id }, `courier booking: ${outcome}`);
    } catch (err) {
      if (err instanceof Skip) {
        deps.onOutcome?.('skipped');
        log.info({ job: job.id, order: job.order_id }, `courier booking skipped: ${err.message}`);
      } else await fail(job, err).catch((recordErr: unknown) => failedToRecord(job, recordErr));
    }
    return true;
  }

  const poller = pollLoop({
    pollMs: config.FULFILMENT_POLL_MS,
    runOnce,
    onError: (err) => {
      deps.onError?.('poll');
      log.error({ err }, `courier worker: poll failed; polling again in ${config.FULFILMENT_POLL_MS} ms`);
    },
  });

  return {
    id: workerId,
    runOnce,
    start(): void {
      if (!aborter.signal.aborted) poller.start();
    },
    /** Stops polling, aborts a courier call in flight (its job is handed back) and waits for the loop to end. */
    async stop(): Promise<void> {
      const stopped = poller.stop();
      aborter.abort(new Error('worker stopping'));
      await stopped;
    },
  };
}

export type CourierWorker = ReturnType<typeof createCourierWorker>;
