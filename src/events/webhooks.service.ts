import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
import { AppError, notFound, validationError } from '../contract/errors.js';
import { MAX_WEBHOOK_ENDPOINTS, type CreateWebhookBody, type WebhookEndpoint } from '../contract/webhooks.js';
import { newId } from '../lib/ids.js';
import { signWebhook, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER } from '../lib/webhook-signature.js';
import { checkDestination, DestinationError, type DestinationPolicy } from '../lib/destination.js';
import {
  countEndpoints,
  enableEndpoint,
  findDeliveries,
  findEndpoint,
  findEndpoints,
  insertEndpoint,
  lockCompany,
  removeEndpoint,
  resendFailed,
  rotateEndpointSecret,
  type EndpointRecord,
} from './events.queries.js';
import { sendWebhook } from './sender.js';
import { newWebhookSecret, webhookSecretBox } from './webhook-secrets.js';

export type WebhookConfig = Pick<
  Config,
  'SIGNING_SECRET' | 'WEBHOOK_ALLOW_HTTP' | 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES' | 'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_ROTATION_GRACE_MS'
>;

/** The setting that relaxes each rule, named in a refusal for operators trying the service locally. */
const RELAXED_BY: Record<keyof DestinationPolicy, string> = {
  allowHttp: 'WEBHOOK_ALLOW_HTTP',
  allowPrivate: 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES',
};

export const destinationPolicy = (config: Pick<Config, 'WEBHOOK_ALLOW_HTTP' | 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES'>): DestinationPolicy => ({
  allowHttp: config.WEBHOOK_ALLOW_HTTP,
  allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES,
});

/** An endpoint as its owner sees it: never its secret. */
export function endpointOut(e: EndpointRecord): WebhookEndpoint {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.events,
    status: e.status === 'disabled' ? 'disabled' : 'active',
    disabled_reason: e.disabled_reason,
    failing_since: e.failing_since ? e.failing_since.toISOString() : null,
    created_at: e.created_at.toISOString(),
  };
}

/** An endpoint as the audit trail names it: its URL's host only (a path or query may hold the receiver's token). */
const audited = (e: Pick<EndpointRecord, 'url' | 'events'>) => ({ host: new URL(e.url).host, events: e.events });

/** Webhook endpoints of a company (REST with the `webhooks` permission, and the admin CLI) and their deliveries. */
export function createWebhookService({ db, config, clock = () => new Date() }: { db: Db; config: WebhookConfig; clock?: () => Date }) {
  const policy = destinationPolicy(config);
  const box = webhookSecretBox(db, config);

  async function checkUrl(url: string): Promise<string> {
    try {
      return (await checkDestination(url, policy)).toString();
    } catch (err) {
      if (err instanceof DestinationError) {
        const setting = err.relaxedBy && `; when the service runs locally for development, ${RELAXED_BY[err.relaxedBy]}=true accepts it`;
        throw validationError([{ path: 'url', message: `${err.message}${setting ?? ''}` }]);
      }
      throw err;
    }
  }

  const unknown = (id: string) => notFound(`no webhook endpoint "${id}" in this company`);

  return {
    policy,

    /** Adds an endpoint; its secret is in the answer and never again. At most MAX_WEBHOOK_ENDPOINTS per company. */
    async create(companyId: string, actor: Actor, body: CreateWebhookBody): Promise<WebhookEndpoint & { secret: string }> {
      const url = await checkUrl(body.url);
      const secret = newWebhookSecret();
      const sealed = (await box()).seal(secret);
      const events = [...new Set(body.events)];
      const record = await db.tx(async (tx) => {
        // The company row lock serialises additions per company, so an 11th endpoint cannot slip in.
        if (!(await lockCompany(tx, companyId))) throw notFound(`no company with id "${companyId}"`);
        if ((await countEndpoints(tx, companyId)) >= MAX_WEBHOOK_ENDPOINTS)
          throw new AppError('unprocessable', `the company already has ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints (the most allowed); remove one first`, [
            { path: 'url', message: `at most ${MAX_WEBHOOK_ENDPOINTS} endpoints per company` },
          ]);
        const inserted = await insertEndpoint(tx, companyId, { id: newId('whe'), url, description: body.description || null, events, secretEnc: sealed });
        await recordAudit(tx, companyId, actor, {
          action: 'webhook.added',
          subjectKind: 'webhook_endpoint',
          subjectId: inserted.id,
          detail: audited(inserted),
        });
        return inserted;
      });
      return { ...endpointOut(record), secret };
    },

    async list(companyId: string): Promise<WebhookEndpoint[]> {
      return (await findEndpoints(db, companyId)).map(endpointOut);
    },

    /** Removes an endpoint: nothing more is sent to it; its pending deliveries are given up. */
    async remove(companyId: string, actor: Actor, id: string): Promise<{ id: string; removed: true }> {
      await db.tx(async (tx) => {
        if (!(await removeEndpoint(tx, companyId, id, clock()))) throw unknown(id);
        await recordAudit(tx, companyId, actor, { action: 'webhook.removed', subjectKind: 'webhook_endpoint', subjectId: id });
      });
      return { id, removed: true };
    },

    /** Turns a disabled endpoint on again (its secret unchanged); failed deliveries can then be re-sent. */
    async enable(companyId: string, actor: Actor, id: string): Promise<WebhookEndpoint> {
      const record = await db.tx(async (tx) => {
        const enabled = await enableEndpoint(tx, companyId, id, clock());
        if (!enabled) throw unknown(id);
        await recordAudit(tx, companyId, actor, { action: 'webhook.enabled', subjectKind: 'webhook_endpoint', subjectId: id, detail: audited(enabled) });
        return enabled;
      });
      return endpointOut(record);
    },

    /** A new secret, shown once; the previous one keeps signing (beside it) for WEBHOOK_ROTATION_GRACE_MS. */
    async rotate(companyId: string, actor: Actor, id: string): Promise<WebhookEndpoint & { secret: string; previous_secret_valid_until: string }> {
      const secret = newWebhookSecret();
      const until = new Date(clock().getTime() + config.WEBHOOK_ROTATION_GRACE_MS);
      const record = await db.tx(async (tx) => {
        const rotated = await rotateEndpointSecret(tx, companyId, id, (await box()).seal(secret), until);
        if (!rotated) throw unknown(id);
        await recordAudit(tx, companyId, actor, {
          action: 'webhook.secret_rotated',
          subjectKind: 'webhook_endpoint',
          subjectId: id,
          detail: { previous_secret_valid_until: until.toISOString() },
        });
        return rotated;
      });
      return { ...endpointOut(record), secret, previous_secret_valid_until: until.toISOString() };
    },

    /** Sends one signed `webhook.test` event now (outside the outbox) and answers what the endpoint replied. */
    async test(companyId: string, actor: Actor, id: string): Promise<{ id: string; status: number | null; error: string | null }> {
      const endpoint = await findEndpoint(db, companyId, id);
      if (!endpoint) throw unknown(id);
      const eventId = newId('evt');
      const body = JSON.stringify({ id: eventId, type: 'webhook.test', created_at: clock().toISOString(), data: { endpoint_id: id } });
      const secret = (await box()).open(endpoint.secret_enc);
      const result = await sendWebhook(
        endpoint.url,
        body,
        { [WEBHOOK_SIGNATURE_HEADER]: signWebhook([secret], body), [WEBHOOK_ID_HEADER]: eventId },
        { policy, timeoutMs: config.WEBHOOK_TIMEOUT_MS },
      );
      // after the send (no transaction spans a network call): what was sent where, and what came back
      await recordAudit(db, companyId, actor, {
        action: 'webhook.tested',
        subjectKind: 'webhook_endpoint',
        subjectId: id,
        detail: { ...audited(endpoint), event_id: eventId, status: result.status },
      });
      return { id, ...result };
    },

    deliveries(companyId: string, opts: { status?: 'pending' | 'delivered' | 'failed'; endpointId?: string; limit?: number } = {}) {
      return findDeliveries(db, companyId, { ...opts, limit: opts.limit ?? 50 });
    },

    /** Failed deliveries due again now: one event's (to every endpoint it failed at) or all of the company's. */
    async resend(companyId: string, actor: Actor, eventId: string | null): Promise<{ resent: number }> {
      return db.tx(async (tx) => {
        const resent = await resendFailed(tx, companyId, eventId);
        await recordAudit(tx, companyId, actor, {
          action: 'webhook.resent',
          subjectKind: eventId ? 'event' : null,
          subjectId: eventId,
          detail: { all_failed: eventId === null, resent },
        });
        return { resent };
      });
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
