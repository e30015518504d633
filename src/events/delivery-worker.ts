import { setMaxListeners } from 'node:events';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { newId } from '../lib/ids.js';
import { companiesInTurn, pollLoop } from '../lib/poll-loop.js';
import { signWebhook, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER } from '../lib/webhook-signature.js';
import {
  claimDeliveries,
  clearEndpointFailing,
  disableEndpoint,
  failPendingDeliveries,
  findDeliveryEndpoints,
  findDueDeliveryCompanies,
  findEventsByIds,
  handBackDelivery,
  markEndpointFailing,
  settleDelivery,
  type ClaimedDelivery,
  type DeliveryEndpoint,
} from './events.queries.js';
import { sendWebhook } from './sender.js';
import { destinationPolicy } from './webhooks.service.js';
import { webhookSecretBox } from './webhook-secrets.js';

export type DeliveryWorkerConfig = Pick<
  Config,
  | 'SIGNING_SECRET'
  | 'WEBHOOK_ALLOW_HTTP'
  | 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES'
  | 'WEBHOOK_POLL_MS'
  | 'WEBHOOK_TIMEOUT_MS'
  | 'WEBHOOK_RETRY_BASE_MS'
  | 'WEBHOOK_RETRY_MAX_MS'
  | 'WEBHOOK_RETRY_FOR_MS'
  | 'WEBHOOK_DISABLE_AFTER_MS'
>;

interface WorkerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Where the worker's own code failed (no attempt outcome counts it): finding or claiming work, or one delivery. */
export type DeliveryWorkerStage = 'poll' | 'delivery';

/** Companies read per poll, and deliveries claimed per company per turn (sent in parallel: different subjects). */
const DUE_COMPANIES = 50;
const BATCH = 20;

/** Delay before the next attempt after `attempts` failed ones: base × 2^(n-1), capped, then ±50% jitter. */
export function retryDelayMs(base: number, max: number, attempts: number, random: () => number = Math.random): number {
  const plain = Math.min(base * 2 ** Math.max(0, attempts - 1), max);
  return Math.round(plain * (0.5 + random()));
}

type Claimed = ClaimedDelivery & {
  type: string;
  data: unknown;
  whatsapp: unknown;
  event_created_at: Date;
} & Omit<DeliveryEndpoint, 'id'>;

/**
 * The webhook delivery worker of one service process. A poll reads, without locks, which companies have a due
 * delivery (the named cross-company read `webhooks.due-companies`); then, per company, one statement claims up
 * to BATCH due deliveries with FOR UPDATE SKIP LOCKED and pushes them past a lease (the send's timeout and a
 * margin), so no other instance takes them while this one sends; no transaction is held over HTTP and no row
 * lock is taken across companies. A delivery is claimable only when no earlier delivery of the same subject
 * (order or customer) to the same endpoint is still pending: in order per order. 2xx delivers; anything else
 * retries with exponential backoff and jitter until WEBHOOK_RETRY_FOR_MS after the event, then fails. An endpoint
 * with no success for WEBHOOK_DISABLE_AFTER_MS is disabled and its pending deliveries fail.
 */
export function createDeliveryWorker(deps: {
  db: Db;
  config: DeliveryWorkerConfig;
  /** The service's logger (a child of it): the worker runs with the serializers of `npm start`, in tests too. */
  log: WorkerLog;
  clock?: () => Date;
  /** Each delivery attempt's outcome once recorded (metrics): delivered, retrying or failed. */
  onOutcome?: (outcome: 'delivered' | 'retrying' | 'failed') => void;
  /** An error in the worker itself (metrics); the work is retried: the next poll, or the delivery once its claim runs out. */
  onError?: (stage: DeliveryWorkerStage) => void;
}) {
  const { db, config, log } = deps;
  const clock = deps.clock ?? (() => new Date());
  const policy = destinationPolicy(config);
  const box = webhookSecretBox(db, config);
  const workerId = newId('wkr');
  const aborter = new AbortController();
  setMaxListeners(BATCH + 10, aborter.signal); // one listener per send in flight
  // A claim outlives the send (bounded by WEBHOOK_TIMEOUT_MS) with a margin; a killed worker's claims are due again after it.
  const leaseMs = config.WEBHOOK_TIMEOUT_MS + 5_000;

  async function dueCompanies(): Promise<string[]> {
    return findDueDeliveryCompanies(db, DUE_COMPANIES);
  }

  /** Claims the company's due deliveries whose subject has no earlier pending delivery to that endpoint. */
  async function claimIn(companyId: string): Promise<Claimed[]> {
    const claimed = await claimDeliveries(db, companyId, leaseMs, BATCH);
    if (claimed.length === 0) return [];
    const eventIds = [...new Set(claimed.map((c) => c.event_id))];
    const endpointIds = [...new Set(claimed.map((c) => c.endpoint_id))];
    const [events, endpoints] = await Promise.all([findEventsByIds(db, companyId, eventIds), findDeliveryEndpoints(db, companyId, endpointIds)]);
    const eventById = new Map(events.map((e) => [e.id, e]));
    const endpointById = new Map(endpoints.map((e) => [e.id, e]));
    return claimed.map((c) => {
      const e = eventById.get(c.event_id)!;
      const w = endpointById.get(c.endpoint_id)!;
      return { ...c, type: e.type, data: e.data, whatsapp: e.whatsapp, event_created_at: e.created_at, ...w };
    });
  }

  /** The next due company's batch, companies taken in turn (src/lib/poll-loop.ts). */
  const nextDue = companiesInTurn(dueCompanies, async (companyId) => {
    const batch = await claimIn(companyId);
    return batch.length > 0 ? batch : undefined;
  });

  /** The body, byte for byte what is signed: the event's envelope with its stored data (and an order event's WhatsApp messages). */
  const bodyOf = (d: Claimed) =>
    JSON.stringify({
      id: d.event_id,
      type: d.type,
      created_at: d.event_created_at.toISOString(),
      data: d.data,
      ...(d.whatsapp === null || d.whatsapp === undefined ? {} : { whatsapp: d.whatsapp }),
    });

  async function deliver(companyId: string, d: Claimed): Promise<void> {
    const now = clock();
    if (d.status !== 'active') {
      await settle(companyId, d, 'failed', null, `endpoint ${d.status}`, now);
      return;
    }
    const opened = await box();
    const secrets = [opened.open(d.secret_enc)];
    if (d.previous_secret_enc && d.previous_secret_expires_at && d.previous_secret_expires_at > now) secrets.push(opened.open(d.previous_secret_enc));
    const body = bodyOf(d);
    const result = await sendWebhook(
      d.url,
      body,
      { [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secrets, body, Math.floor(now.getTime() / 1000)), [WEBHOOK_ID_HEADER]: d.event_id },
      { policy, timeoutMs: config.WEBHOOK_TIMEOUT_MS, signal: aborter.signal },
    );
    const after = clock();
    if (result.status !== null && result.status >= 200 && result.status < 300) {
      await settle(companyId, d, 'delivered', result.status, null, after);
      return;
    }
    const error = result.error ?? `HTTP ${result.status}`;
    if (aborter.signal.aborted) {
      // Shutting down: hand the delivery back now (this attempt does not count) instead of waiting out the lease.
      await handBackDelivery(db, companyId, d.endpoint_id, d.event_id);
      return;
    }
    const giveUp = after.getTime() - d.created_at.getTime() >= config.WEBHOOK_RETRY_FOR_MS;
    await settle(companyId, d, giveUp ? 'failed' : 'pending', result.status, error, after, result.cause);
  }

  /** Writes one outcome and the endpoint's health (failing since when; disabled past WEBHOOK_DISABLE_AFTER_MS). */
  async function settle(
    companyId: string,
    d: Claimed,
    status: 'pending' | 'delivered' | 'failed',
    code: number | null,
    error: string | null,
    now: Date,
    cause?: Error,
  ) {
    const delay = retryDelayMs(config.WEBHOOK_RETRY_BASE_MS, config.WEBHOOK_RETRY_MAX_MS, d.attempts);
    // The common case, a delivery to a healthy endpoint, is one statement; the rest also write the endpoint's health.
    const run = status === 'delivered' && !d.failing_since ? <T>(fn: (tx: Db) => Promise<T>) => fn(db) : <T>(fn: (tx: Db) => Promise<T>) => db.tx(fn);
    await run(async (tx) => {
      await settleDelivery(tx, companyId, {
        endpointId: d.endpoint_id,
        eventId: d.event_id,
        status,
        code,
        error: error ? error.slice(0, 300) : null,
        deliveredAt: status === 'delivered' ? now : null,
        at: now,
        nextAttemptAt: new Date(now.getTime() + (status === 'pending' ? delay : 0)),
      });
      if (d.status !== 'active') return;
      if (status === 'delivered') {
        if (d.failing_since) await clearEndpointFailing(tx, companyId, d.endpoint_id, now);
        return;
      }
      const failingSince = await markEndpointFailing(tx, companyId, d.endpoint_id, now);
      if (failingSince && now.getTime() - failingSince.getTime() >= config.WEBHOOK_DISABLE_AFTER_MS) {
        const reason = `no successful delivery since ${failingSince.toISOString()} (last: ${error ?? 'failed'})`;
        await disableEndpoint(tx, companyId, d.endpoint_id, reason.slice(0, 300), now);
        await failPendingDeliveries(tx, companyId, d.endpoint_id, 'endpoint disabled', now);
        log.error({ company: companyId, endpoint: d.endpoint_id }, 'webhook endpoint disabled after failing for too long');
      }
    });
    deps.onOutcome?.(status === 'pending' ? 'retrying' : status);
    // The network's own error when there is one (refused, timed out, a certificate refused); else our reason ("HTTP 500").
    if (status !== 'delivered')
      log.warn(
        { company: companyId, endpoint: d.endpoint_id, event: d.event_id, attempts: d.attempts, status: code, ...(cause ? { err: cause } : { reason: error }) },
        status === 'failed' ? 'webhook delivery failed; given up' : `webhook delivery failed; retrying in ${delay} ms`,
      );
  }

  /** Claims and sends one company's batch (the next due company's, or the one named); false when nothing was due. */
  async function runOnce(companyId?: string): Promise<boolean> {
    const next = companyId ? { companyId, claimed: await claimIn(companyId) } : await nextDue();
    if (!next || next.claimed.length === 0) return false;
    await Promise.all(
      next.claimed.map((d) =>
        deliver(next.companyId, d).catch((err: unknown) => {
          deps.onError?.('delivery');
          log.error(
            { company: next.companyId, endpoint: d.endpoint_id, event: d.event_id, err },
            'webhook delivery: the attempt could not be made or recorded; retried once its claim runs out',
          );
        }),
      ),
    );
    return true;
  }

  const poller = pollLoop({
    pollMs: config.WEBHOOK_POLL_MS,
    runOnce: () => runOnce(undefined),
    onError: (err) => {
      deps.onError?.('poll');
      log.error({ err }, `webhook worker: poll failed; polling again in ${config.WEBHOOK_POLL_MS} ms`);
    },
  });

  return {
    id: workerId,
    runOnce,
    /** Runs until nothing is due (of one company when named). */
    async drainNow(companyId?: string): Promise<void> {
      while (await runOnce(companyId));
    },
    start(): void {
      if (!aborter.signal.aborted) poller.start();
    },
    async stop(): Promise<void> {
      const stopped = poller.stop();
      aborter.abort(new Error('worker stopping'));
      await stopped;
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
