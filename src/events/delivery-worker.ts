import { setMaxListeners } from 'node:events';
import { sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { crossCompany } from '../db/cross-company.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../db/schema/index.js';
import { newId } from '../lib/ids.js';
import { companiesInTurn, pollLoop } from '../lib/poll-loop.js';
import { signWebhook, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER } from '../lib/webhook-signature.js';
import { failPendingDeliveries } from './events.queries.js';
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

type Claimed = Pick<WebhookDeliveryRow, 'endpoint_id' | 'event_id' | 'attempts' | 'created_at'> & {
  type: string;
  data: unknown;
  event_created_at: Date;
} & Pick<WebhookEndpointRow, 'url' | 'secret_enc' | 'previous_secret_enc' | 'previous_secret_expires_at' | 'status' | 'failing_since'>;

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
    const rows = await crossCompany<{ company_id: string }>(
      db,
      'webhooks.due-companies',
      sql`SELECT company_id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()
          GROUP BY company_id ORDER BY min(next_attempt_at) LIMIT ${DUE_COMPANIES}`,
    );
    return rows.map((r) => r.company_id);
  }

  /** Claims the company's due deliveries whose subject has no earlier pending delivery to that endpoint. */
  async function claimIn(companyId: string): Promise<Claimed[]> {
    const claimed = await db.query<Pick<WebhookDeliveryRow, 'endpoint_id' | 'event_id' | 'attempts' | 'created_at'>>(sql`
      UPDATE webhook_deliveries d SET attempts = d.attempts + 1, updated_at = now(), next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
      WHERE d.company_id = ${companyId} AND (d.endpoint_id, d.event_id) IN (
        SELECT x.endpoint_id, x.event_id FROM webhook_deliveries x
        WHERE x.company_id = ${companyId} AND x.status = 'pending' AND x.next_attempt_at <= now()
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                          WHERE p.company_id = ${companyId} AND p.endpoint_id = x.endpoint_id AND p.subject_id = x.subject_id
                            AND p.status = 'pending' AND p.seq < x.seq)
        ORDER BY x.next_attempt_at, x.seq LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
      RETURNING d.endpoint_id, d.event_id, d.attempts, d.created_at`);
    if (claimed.length === 0) return [];
    const eventIds = [...new Set(claimed.map((c) => c.event_id))];
    const endpointIds = [...new Set(claimed.map((c) => c.endpoint_id))];
    const [events, endpoints] = await Promise.all([
      db.query<{ id: string; type: string; data: unknown; created_at: Date }>(
        sql`SELECT id, type, data, created_at FROM events WHERE company_id = ${companyId} AND id = ANY(${sql.param(eventIds)}::text[])`,
      ),
      db.query<Pick<WebhookEndpointRow, 'id' | 'url' | 'secret_enc' | 'previous_secret_enc' | 'previous_secret_expires_at' | 'status' | 'failing_since'>>(
        sql`SELECT id, url, secret_enc, previous_secret_enc, previous_secret_expires_at, status, failing_since
            FROM webhook_endpoints WHERE company_id = ${companyId} AND id = ANY(${sql.param(endpointIds)}::text[])`,
      ),
    ]);
    const eventById = new Map(events.map((e) => [e.id, e]));
    const endpointById = new Map(endpoints.map((e) => [e.id, e]));
    return claimed.map((c) => {
      const e = eventById.get(c.event_id)!;
      const w = endpointById.get(c.endpoint_id)!;
      return { ...c, type: e.type, data: e.data, event_created_at: e.created_at, ...w };
    });
  }

  /** The next due company's batch, companies taken in turn (src/lib/poll-loop.ts). */
  const nextDue = companiesInTurn(dueCompanies, async (companyId) => {
    const batch = await claimIn(companyId);
    return batch.length > 0 ? batch : undefined;
  });

  /** The body, byte for byte what is signed: the event's envelope with its stored data. */
  const bodyOf = (d: Claimed) => JSON.stringify({ id: d.event_id, type: d.type, created_at: d.event_created_at.toISOString(), data: d.data });

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
      await db.query(sql`
        UPDATE webhook_deliveries SET next_attempt_at = now(), attempts = greatest(attempts - 1, 0), updated_at = now()
        WHERE company_id = ${companyId} AND endpoint_id = ${d.endpoint_id} AND event_id = ${d.event_id} AND status = 'pending'`);
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
    const at = now.toISOString();
    // The common case, a delivery to a healthy endpoint, is one statement; the rest also write the endpoint's health.
    const run = status === 'delivered' && !d.failing_since ? <T>(fn: (tx: Db) => Promise<T>) => fn(db) : <T>(fn: (tx: Db) => Promise<T>) => db.tx(fn);
    await run(async (tx) => {
      await tx.query(sql`
        UPDATE webhook_deliveries SET status = ${status}, last_status_code = ${code}, last_error = ${error ? error.slice(0, 300) : null},
          delivered_at = ${status === 'delivered' ? at : null}::timestamptz, updated_at = ${at}::timestamptz,
          next_attempt_at = ${new Date(now.getTime() + (status === 'pending' ? delay : 0)).toISOString()}::timestamptz
        WHERE company_id = ${companyId} AND endpoint_id = ${d.endpoint_id} AND event_id = ${d.event_id} AND status = 'pending'`);
      if (d.status !== 'active') return;
      if (status === 'delivered') {
        if (d.failing_since)
          await tx.query(sql`UPDATE webhook_endpoints SET failing_since = NULL, updated_at = ${at}::timestamptz
                             WHERE company_id = ${companyId} AND id = ${d.endpoint_id}`);
        return;
      }
      const [w] = await tx.query<{ failing_since: Date }>(sql`
        UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ${at}::timestamptz), updated_at = ${at}::timestamptz
        WHERE company_id = ${companyId} AND id = ${d.endpoint_id} AND status = 'active' RETURNING failing_since`);
      if (w && now.getTime() - w.failing_since.getTime() >= config.WEBHOOK_DISABLE_AFTER_MS) {
        const reason = `no successful delivery since ${w.failing_since.toISOString()} (last: ${error ?? 'failed'})`;
        await tx.query(sql`UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ${reason.slice(0, 300)}, updated_at = ${at}::timestamptz
                           WHERE company_id = ${companyId} AND id = ${d.endpoint_id} AND status = 'active'`);
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
