import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';

/** An Idempotency-Key's record: status_code 0 while its first request is still being answered. */
export interface IdempotencyRecord {
  request_hash: Uint8Array;
  status_code: number;
  response: string;
  /** seconds since the record was written */
  age_s: number;
}

/**
 * Claims the key for this request: true when it was free (or its pending claim is older than `staleSeconds`). Two
 * statements, not one upsert with a WHERE: Citus refuses the time arithmetic (a stable function) in an upsert's
 * ON CONFLICT WHERE on a distributed table. The take-over's UPDATE re-reads a row another take-over just changed
 * (its created_at is then fresh), so two of them never both win.
 */
export async function claimIdempotencyKey(db: Db, companyId: string, scope: string, key: string, hash: Buffer, staleSeconds: number): Promise<boolean> {
  const fresh = await db.query(sql`
    INSERT INTO idempotency_records (company_id, scope, key, request_hash, status_code, response)
    VALUES (${companyId}, ${scope}, ${key}, ${hash}, 0, '')
    ON CONFLICT (company_id, scope, key) DO NOTHING
    RETURNING 1`);
  if (fresh.length > 0) return true;
  const takenOver = await db.query(sql`
    UPDATE idempotency_records SET request_hash = ${hash}, created_at = now()
     WHERE company_id = ${companyId} AND scope = ${scope} AND key = ${key}
       AND status_code = 0 AND created_at < now() - ${staleSeconds} * interval '1 second'
    RETURNING 1`);
  return takenOver.length > 0;
}

export async function findIdempotencyRecord(db: Db, companyId: string, scope: string, key: string): Promise<IdempotencyRecord | undefined> {
  const [row] = await db.query<IdempotencyRecord>(sql`
    SELECT request_hash, status_code, response, extract(epoch FROM now() - created_at)::float8 AS age_s
      FROM idempotency_records WHERE company_id = ${companyId} AND scope = ${scope} AND key = ${key}`);
  return row;
}

/** Keeps the answer the claimed request got. */
export async function settleIdempotencyKey(db: Db, companyId: string, scope: string, key: string, statusCode: number, response: string): Promise<void> {
  await db.query(sql`
    UPDATE idempotency_records SET status_code = ${statusCode}, response = ${response}
     WHERE company_id = ${companyId} AND scope = ${scope} AND key = ${key} AND status_code = 0`);
}

/** Frees a claim whose request failed without an answer worth keeping (a fault): the key may be tried again. */
export async function releaseIdempotencyKey(db: Db, companyId: string, scope: string, key: string): Promise<void> {
  await db.query(sql`
    DELETE FROM idempotency_records WHERE company_id = ${companyId} AND scope = ${scope} AND key = ${key} AND status_code = 0`);
}
