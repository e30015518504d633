import { randomBytes } from 'node:crypto';
import type { Db } from '../db/index.js';
import { AppError, notFound, validationError } from '../contract/errors.js';
import { findCourierConfig } from './fulfilment.queries.js';
import { findCallbackSecret, findJobCompany, findJobs, retryFailedJob, upsertCourierConfig, type CourierConfigInput } from './couriers-admin.queries.js';

/** Courier administration: the company's adapter and settings, its callback secret, and the booking jobs staff inspect and retry. */
export function createCouriersAdminService({ db }: { db: Db }) {
  async function listJobs(opts: { companyId?: string; failed?: boolean }) {
    return findJobs(db, opts);
  }

  return {
    /** courier configure: the adapter and its settings; a callback secret is made on first use (or on rotate) and shown then only. */
    async configureCourier(companyId: string, input: CourierConfigInput) {
      if (input.adapter === 'shiprocket') {
        const missing = (['baseUrl', 'email', 'password'] as const).filter((k) => !input[k]);
        const current = await findCourierConfig(db, companyId);
        const still = missing.filter((k) => !(current && { baseUrl: current.baseUrl, email: current.apiEmail, password: current.apiPassword }[k]));
        if (still.length) throw validationError(still.map((k) => ({ path: k, message: 'required for the shiprocket adapter' })));
        if (input.baseUrl && !/^https?:\/\/[^\s]+$/.test(input.baseUrl)) throw validationError([{ path: 'baseUrl', message: 'must be an http(s) URL' }]);
      }
      const row = await upsertCourierConfig(db, companyId, input, randomBytes(32).toString('base64url'));
      const shown = row.created || input.rotateSecret;
      const cfg = (await findCourierConfig(db, companyId))!;
      return {
        adapter: cfg.adapter,
        base_url: cfg.baseUrl,
        email: cfg.apiEmail,
        password_set: Boolean(cfg.apiPassword),
        pickup_location: cfg.pickupLocation,
        callback_secret: shown ? row.callback_secret : undefined,
      };
    },

    /** The company's callback signing secret, by company id or slug (for the callback route). */
    async callbackSecret(company: string): Promise<{ companyId: string; secret: string } | undefined> {
      const row = await findCallbackSecret(db, company);
      return row ? { companyId: row.company_id, secret: row.callback_secret } : undefined;
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
