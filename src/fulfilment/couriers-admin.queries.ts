import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { crossCompany } from '../db/cross-company.js';
import type { AdapterName } from '../couriers/index.js';
import type { CourierConfigRow, JobRow, OrderRow } from '../db/schema/index.js';

export interface CourierConfigInput {
  adapter: AdapterName;
  baseUrl?: string | null;
  email?: string | null;
  password?: string | null;
  /** The API token of a courier that uses one (Delhivery); stored in the same secret column as a password. */
  token?: string | null;
  pickupLocation?: string | null;
  rotateSecret?: boolean;
}

/** Creates or updates the company's courier configuration; `secret` is kept only on creation or rotation. */
export async function upsertCourierConfig(
  db: Db,
  companyId: string,
  input: CourierConfigInput,
  secret: string,
): Promise<Pick<CourierConfigRow, 'callback_secret'> & { created: boolean }> {
  // created: (xmax = 0), true when the upsert inserted the row
  const rows = await db.query<Pick<CourierConfigRow, 'callback_secret'> & { created: boolean }>(sql`
    INSERT INTO courier_configs (company_id, adapter, base_url, api_email, api_password, pickup_location, callback_secret)
    VALUES (${companyId}, ${input.adapter}, ${input.baseUrl ?? null}, ${input.email ?? null}, ${input.password ?? null}, ${input.pickupLocation ?? null}, ${secret})
    ON CONFLICT (company_id) DO UPDATE SET
      adapter = excluded.adapter,
      base_url = coalesce(${input.baseUrl ?? null}, courier_configs.base_url),
      api_email = coalesce(${input.email ?? null}, courier_configs.api_email),
      api_password = coalesce(${input.password ?? null}, courier_configs.api_password),
      pickup_location = coalesce(${input.pickupLocation ?? null}, courier_configs.pickup_location),
      callback_secret = CASE WHEN ${input.rotateSecret ?? false} THEN excluded.callback_secret ELSE courier_configs.callback_secret END,
      updated_at = excluded.updated_at
    RETURNING callback_secret, (xmax = 0) AS created`);
  return rows[0];
}

/**
 * The callback signing secret of a company named by id or slug: the company first (companies is a reference
 * table under Citus), then its courier configuration on that company's shard.
 */
export async function findCallbackSecret(db: Db, company: string): Promise<Pick<CourierConfigRow, 'company_id' | 'callback_secret' | 'adapter'> | undefined> {
  const [co] = await db.query<{ id: string }>(sql`SELECT id FROM companies WHERE id = ${company} OR slug = ${company}`);
  if (!co) return undefined;
  const rows = await db.query<Pick<CourierConfigRow, 'company_id' | 'callback_secret' | 'adapter'>>(
    sql`SELECT company_id, callback_secret, adapter FROM courier_configs WHERE company_id = ${co.id}`,
  );
  return rows[0];
}

/** A job as staff see it, with its order's number (null when the order is gone or the job has none). */
export type JobListing = Pick<JobRow, 'id' | 'company_id' | 'kind' | 'status' | 'attempts' | 'run_at' | 'last_error' | 'updated_at'> & {
  order_number: OrderRow['order_number'] | null;
};

/** The latest 200 jobs, of one company or all (a named cross-company read), optionally only the failed ones. */
export async function findJobs(db: Db, opts: { companyId?: string; failed?: boolean }): Promise<JobListing[]> {
  const failed = opts.failed ?? false;
  const select = sql`
    SELECT j.id, j.company_id, j.kind, o.order_number, j.status, j.attempts, j.run_at, j.last_error, j.updated_at
    FROM jobs j LEFT JOIN orders o ON o.company_id = j.company_id AND o.id = j.order_id`;
  if (opts.companyId !== undefined) {
    return db.query<JobListing>(sql`${select}
      WHERE j.company_id = ${opts.companyId} AND (${failed} = false OR j.status = 'failed')
      ORDER BY j.created_at DESC LIMIT 200`);
  }
  return crossCompany<JobListing>(db, 'admin.jobs-list', sql`${select} WHERE (${failed} = false OR j.status = 'failed') ORDER BY j.created_at DESC LIMIT 200`);
}

/** The company of a job named by its id alone (staff give only the id); undefined when there is no such job. */
export async function findJobCompany(db: Db, jobId: string): Promise<string | undefined> {
  const rows = await crossCompany<Pick<JobRow, 'company_id'>>(db, 'admin.job-company', sql`SELECT company_id FROM jobs WHERE id = ${jobId} LIMIT 1`);
  return rows[0]?.company_id;
}

/** A failed job due again with a fresh attempt count; false when there is no such failed job. */
export async function retryFailedJob(db: Db, companyId: string, jobId: string): Promise<boolean> {
  const rows = await db.query<Pick<JobRow, 'id'>>(sql`
    UPDATE jobs SET status = 'pending', attempts = 0, run_at = now(), claimed_by = NULL, updated_at = now()
    WHERE company_id = ${companyId} AND id = ${jobId} AND status = 'failed' RETURNING id`);
  return rows.length === 1;
}
