import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { crossCompany } from '../db/cross-company.js';
import { columnList, jobs, type JobRow } from '../db/schema/index.js';

/**
 * The courier-booking worker's statements on `jobs` (worker.ts): the due companies, a claim within one company, and
 * the outcome written back only while the claiming worker still holds the job.
 */

const CLAIMED_FIELDS = ['company_id', 'id', 'order_id', 'attempts'] as const;
export type ClaimedJob = Pick<JobRow, (typeof CLAIMED_FIELDS)[number]>;
const CLAIMED_COLS = columnList(jobs, CLAIMED_FIELDS);

/** Up to `limit` companies with a due booking job, oldest due first; read without locks, across companies (named in CROSS_COMPANY_QUERIES). */
export async function findDueBookingCompanies(db: Db, limit: number): Promise<string[]> {
  const rows = await crossCompany<Pick<JobRow, 'company_id'>>(
    db,
    'worker.due-companies',
    sql`SELECT company_id FROM jobs WHERE status = 'pending' AND kind = 'book_courier' AND run_at <= now()
          GROUP BY company_id ORDER BY min(run_at) LIMIT ${limit}`,
  );
  return rows.map((r) => r.company_id);
}

/**
 * Claims the company's oldest due booking job for `workerId`: one statement on that company's rows (SKIP LOCKED: racing
 * workers take different jobs), its run_at pushed `leaseMs` ahead.
 */
export async function claimBookingJob(db: Db, companyId: string, workerId: string, leaseMs: number): Promise<ClaimedJob | undefined> {
  const rows = await db.query<ClaimedJob>(sql`
      UPDATE jobs SET claimed_by = ${workerId}, attempts = attempts + 1, updated_at = now(),
        run_at = now() + ${leaseMs} * interval '1 millisecond'
      WHERE company_id = ${companyId} AND id = (
        SELECT id FROM jobs WHERE company_id = ${companyId} AND status = 'pending' AND kind = 'book_courier' AND run_at <= now()
        ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING ${CLAIMED_COLS}`);
  return rows[0];
}

/** Marks the job done, only while `workerId` still holds it; false when it does not. */
export async function finishJob(tx: Db, job: ClaimedJob, workerId: string, note: string | null): Promise<boolean> {
  const rows = await tx.query(sql`
      UPDATE jobs SET status = 'done', last_error = ${note}, claimed_by = NULL, updated_at = now()
      WHERE company_id = ${job.company_id} AND id = ${job.id} AND claimed_by = ${workerId} AND status = 'pending' RETURNING id`);
  return rows.length > 0;
}

/** The job handed back due now, its attempt not counted. */
export async function handBackJob(db: Db, job: ClaimedJob, workerId: string, lastError: string): Promise<void> {
  await db.query(sql`
        UPDATE jobs SET run_at = now(), attempts = greatest(attempts - 1, 0), claimed_by = NULL, last_error = ${lastError}, updated_at = now()
        WHERE company_id = ${job.company_id} AND id = ${job.id} AND claimed_by = ${workerId} AND status = 'pending'`);
}

/** A failed attempt: the job `failed` for staff, or pending again `delayMs` from now. */
export async function recordJobFailure(
  db: Db,
  job: ClaimedJob,
  workerId: string,
  { final, delayMs, lastError }: { final: boolean; delayMs: number; lastError: string },
): Promise<void> {
  await db.query(sql`
      UPDATE jobs SET status = ${final ? 'failed' : 'pending'}, last_error = ${lastError}, claimed_by = NULL, updated_at = now(),
        run_at = now() + ${final ? 0 : delayMs} * interval '1 millisecond'
      WHERE company_id = ${job.company_id} AND id = ${job.id} AND claimed_by = ${workerId} AND status = 'pending'`);
}
