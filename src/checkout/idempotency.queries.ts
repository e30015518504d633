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

/** Claims the key for this request: true when it was free (or its pending claim is older than `staleSeconds`). */
export async function claimIdempotencyKey(db: Db, companyId: string, scope: string, key: string, hash: Buffer, staleSeconds: number): Promise<boolean> {
  const rows = await db.query(sql`
    INSERT INTO idempotency_records AS r (company_id, scope, key, request_hash, status_code, response)
    VALUES (${companyId}, ${scope}, ${key}, ${hash}, 0, '')
    ON CONFLICT (company_id, scope, key) DO UPDATE SET request_hash = excluded.request_hash, created_at = now()
      WHERE r.status_code = 0 AND r.created_at < now() - ${staleSeconds} * interval '1 second'
    RETURNING 1`);
  return rows.length > 0;
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
