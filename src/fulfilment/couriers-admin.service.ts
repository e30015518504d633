import { randomBytes } from 'node:crypto';
import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
import { AppError, notFound, validationError } from '../contract/errors.js';
import { adapterName, courierEntry, type AdapterName } from '../couriers/index.js';
import { mergeSettings, settingsIssues, storedSettings } from '../couriers/settings.js';
import { findCourierConfig } from './fulfilment.queries.js';
import { findCallbackSecret, findJobCompany, findJobs, retryFailedJob, upsertCourierConfig, type CourierConfigInput } from './couriers-admin.queries.js';

/** Courier administration: the company's adapter and settings, its callback secret, and the booking jobs staff inspect and retry. */
export function createCouriersAdminService({ db }: { db: Db }) {
  async function listJobs(opts: { companyId?: string; failed?: boolean }) {
    return findJobs(db, opts);
  }

  return {
    /** courier configure: the adapter and its settings; a callback secret is made on first use (or on rotate) and shown then only. */
    async configureCourier(companyId: string, actor: Actor, input: CourierConfigInput) {
      // The courier's own configSchema decides what it needs, over what is already stored.
      const current = await findCourierConfig(db, companyId);
      const settings = courierEntry(input.adapter).configSchema.safeParse(mergeSettings(storedSettings(current), input));
      if (!settings.success) throw validationError(settingsIssues(settings.error.issues));
      const row = await db.tx(async (tx) => {
        const written = await upsertCourierConfig(tx, companyId, { ...input, password: input.password || input.token }, randomBytes(32).toString('base64url'));
        // which settings were given, by name: never the password, token or callback secret, nor the account's e-mail
        const given = { base_url: input.baseUrl, email: input.email, password: input.password, token: input.token, pickup_location: input.pickupLocation };
        const fields = Object.entries(given).flatMap(([field, value]) => (value !== undefined ? [field] : []));
        await recordAudit(tx, companyId, actor, {
          action: 'courier.configured',
          detail: { adapter: input.adapter, fields, callback_secret_made: Boolean(written.created || input.rotateSecret) },
        });
        return { callback_secret: written.callback_secret, made: written.created || input.rotateSecret };
      });
      const cfg = (await findCourierConfig(db, companyId))!;
      return {
        adapter: cfg.adapter,
        base_url: cfg.baseUrl,
        email: cfg.apiEmail,
        password_set: Boolean(cfg.apiPassword),
        pickup_location: cfg.pickupLocation,
        callback_secret: row.made ? row.callback_secret : undefined,
      };
    },

    /** The company's callback signing secret, by company id or slug (for the callback route). */
    async callbackSecret(company: string): Promise<{ companyId: string; secret: string; adapter: AdapterName } | undefined> {
      const row = await findCallbackSecret(db, company);
      return row ? { companyId: row.company_id, secret: row.callback_secret, adapter: adapterName(row.adapter) } : undefined;
    },

    listJobs,

    /** jobs retry <id>: a failed job becomes due again with a fresh attempt count. */
    async retryJob(jobId: string) {
      const companyId = await findJobCompany(db, jobId);
      const retried =
        companyId !== undefined &&
        (await retryFailedJob(db, companyId, jobId).catch((err) => {
          if ((err as { code?: string }).code === '23505') throw new AppError('validation_failed', `another booking for the same order is already pending`);
          throw err;
        }));
      if (!retried) throw notFound(`no failed job "${jobId}"`);
      return (await listJobs({ companyId })).find((j) => j.id === jobId) ?? { id: jobId, status: 'pending' };
    },
  };
}

export type CouriersAdminService = ReturnType<typeof createCouriersAdminService>;
