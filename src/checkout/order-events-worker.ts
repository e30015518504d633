import { sign } from 'node:crypto';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { UCP_VERSION, UcpError } from '../contract/ucp-wire.js';
import { sendWebhook } from '../events/sender.js';
import { retryDelayMs } from '../events/delivery-worker.js';
import { destinationPolicy } from '../events/webhooks.service.js';
import { companiesInTurn, pollLoop } from '../lib/poll-loop.js';
import type { CheckoutService } from './checkout.service.js';
import { claimOrderEvents, findCompaniesOwingOrderEvents, findCompanySlug, settleOrderEvent, type ClaimedOrderEvent } from './order-events.queries.js';
import { orderOut } from './ucp-output.js';
import { ucpEndpoint, ucpVersionProfileUrl } from './ucp-profile.js';
import { ucpSigningKey, type UcpSigningKey } from './ucp-signing-key.js';

export type OrderEventsWorkerConfig = Pick<
  Config,
  | 'WEBHOOK_POLL_MS'
  | 'WEBHOOK_TIMEOUT_MS'
  | 'WEBHOOK_RETRY_BASE_MS'
  | 'WEBHOOK_RETRY_MAX_MS'
  | 'WEBHOOK_RETRY_FOR_MS'
  | 'WEBHOOK_ALLOW_HTTP'
  | 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES'
  | 'SIGNING_SECRET'
>;

interface WorkerLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export type OrderEventsWorkerStage = 'poll' | 'delivery';

/** Companies read per poll, and events claimed per company per turn (sent one after another: oldest first). */
const BATCH = 20;

/**
 * RFC 7797 detached JWS (ES256, unencoded payload) over the exact body, as UCP's order webhooks are signed: the
 * protected header names the key (`kid`) the business's 2026-01-11 profile (the one UCP-Agent names: the events are in
 * 2026-01-11's shapes) lists in `signing_keys`; the value is
 * `<header>..<signature>`, the body travelling as it is.
 */
export function signDetached(key: UcpSigningKey, body: string): string {
  const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: key.publicJwk.kid, typ: 'JWT', b64: false, crit: ['b64'] })).toString('base64url');
  const signature = sign('sha256', Buffer.concat([Buffer.from(`${header}.`), Buffer.from(body)]), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${header}..${signature.toString('base64url')}`;
}

/**
 * The UCP order-event worker of one service process: the platform that placed an order through a checkout hears of
 * it (order_placed) and of its moves (order_shipped, order_delivered, order_canceled, order_returned) at the webhook
 * its profile named. Rows are written with the change (ucp_order_deliveries, migration 0026); the body is built when
 * sent, the full order as it is then (UCP: "full order entity, not deltas"), signed with the deployment's UCP key
 * (Request-Signature), sent with the webhooks' destination guard and timeout, and retried with backoff for
 * WEBHOOK_RETRY_FOR_MS. Several instances may run it (claims use SKIP LOCKED); nothing it meets ends the process.
 */
export function createOrderEventsWorker(deps: {
  db: Db;
  config: OrderEventsWorkerConfig;
  checkout: Pick<CheckoutService, 'order'>;
  /** The origin links and the business profile are made from (PUBLIC_URL, else HOST:PORT). */
  origin: () => string;
  log: WorkerLog;
  onError?: (stage: OrderEventsWorkerStage) => void;
  clock?: () => Date;
}) {
  const { db, config, log, checkout } = deps;
  const clock = deps.clock ?? (() => new Date());
  const policy = destinationPolicy(config);
  const signingKey = ucpSigningKey(db, config);
  const aborter = new AbortController();
  const leaseMs = config.WEBHOOK_TIMEOUT_MS + 30_000;

  const nextDue = companiesInTurn(
    () => findCompaniesOwingOrderEvents(db, BATCH),
    async (companyId) => {
      const claimed = await claimOrderEvents(db, companyId, leaseMs, BATCH);
      return claimed.length > 0 ? claimed : undefined;
    },
  );

  async function deliver(companyId: string, slug: string, e: ClaimedOrderEvent): Promise<void> {
    let body: string;
    try {
      const facts = await checkout.order({ companyId }, e.order_id);
      body = JSON.stringify({ event_type: e.event_type, checkout_id: e.checkout_id, order: orderOut(facts, ucpEndpoint(deps.origin(), slug)) });
    } catch (err) {
      if (!(err instanceof UcpError)) throw err;
      await settleOrderEvent(db, companyId, e.id, { status: 'failed', code: null, error: 'order not found', at: clock(), nextAttemptAt: clock() });
      return;
    }
    const key = await signingKey();
    const result = await sendWebhook(
      e.url,
      body,
      {
        'Request-Signature': signDetached(key, body),
        'Idempotency-Key': e.id,
        // the 2026-01-11 profile, the events' version (the root is 2026-08-25's, whose keys are under `keys`)
        'UCP-Agent': `profile="${ucpVersionProfileUrl(deps.origin(), slug, UCP_VERSION)}"`,
      },
      { policy, timeoutMs: config.WEBHOOK_TIMEOUT_MS, signal: aborter.signal },
    );
    const at = clock();
    if (result.status !== null && result.status >= 200 && result.status < 300) {
      await settleOrderEvent(db, companyId, e.id, { status: 'delivered', code: result.status, error: null, at, nextAttemptAt: at });
      return;
    }
    if (aborter.signal.aborted) return; // shutting down: the claim runs out and another instance sends it
    const error = (result.error ?? `HTTP ${result.status}`).slice(0, 300);
    const giveUp = at.getTime() - e.created_at.getTime() >= config.WEBHOOK_RETRY_FOR_MS;
    const delay = retryDelayMs(config.WEBHOOK_RETRY_BASE_MS, config.WEBHOOK_RETRY_MAX_MS, e.attempts);
    await settleOrderEvent(db, companyId, e.id, {
      status: giveUp ? 'failed' : 'pending',
      code: result.status,
      error,
      at,
      nextAttemptAt: new Date(at.getTime() + delay),
    });
    log.warn(
      { company: companyId, order: e.order_id, event: e.event_type, attempts: e.attempts, status: result.status, reason: error },
      giveUp ? 'UCP order event failed; given up' : `UCP order event failed; retrying in ${delay} ms`,
    );
  }

  /** Claims and sends one company's batch; false when nothing was due. */
  async function runOnce(): Promise<boolean> {
    const next = await nextDue();
    if (!next) return false;
    const slug = (await findCompanySlug(db, next.companyId)) ?? next.companyId;
    for (const e of next.claimed) {
      await deliver(next.companyId, slug, e).catch((err: unknown) => {
        deps.onError?.('delivery');
        log.error(
          { company: next.companyId, order: e.order_id, event: e.event_type, err },
          'UCP order event: the attempt failed; retried once its claim runs out',
        );
      });
    }
    return true;
  }

  const poller = pollLoop({
    pollMs: config.WEBHOOK_POLL_MS,
    runOnce,
    onError: (err) => {
      deps.onError?.('poll');
      log.error({ err }, `UCP order-event worker: poll failed; polling again in ${config.WEBHOOK_POLL_MS} ms`);
    },
  });

  return {
    runOnce,
    /** Runs until nothing is due. */
    async drainNow(): Promise<void> {
      while (await runOnce());
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
