import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { apiKeys, columnList, type ApiKeyRow, type CompanyRow } from '../db/schema/index.js';

const KEY_FIELDS = ['id', 'company_id', 'prefix', 'name', 'permissions', 'created_at', 'last_used_at', 'revoked_at'] as const;
/** A key as shown to staff: everything but its hash. */
export type KeyRecord = Pick<ApiKeyRow, (typeof KEY_FIELDS)[number]>;

const KEY_COLUMNS = columnList(apiKeys, KEY_FIELDS);

/** Writes last_used_at unless a write in the last minute made it fresh. */
export async function touchKey(db: Db, companyId: string, keyId: string): Promise<void> {
  await db.query(
    sql`UPDATE api_keys SET last_used_at = now() WHERE company_id = ${companyId} AND id = ${keyId}
          AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
  );
}

/** Locks the company row (serialising key creation per company); false when there is no such company. */
export async function lockCompanyForKeys(tx: Db, companyId: string): Promise<boolean> {
  const company = await tx.query(sql`SELECT id FROM companies WHERE id = ${companyId} FOR UPDATE`);
  return company.length > 0;
}

export async function countActiveKeys(tx: Db, companyId: string): Promise<number> {
  const [{ active }] = await tx.query<{ active: number }>(
    sql`SELECT count(*)::int AS active FROM api_keys WHERE company_id = ${companyId} AND revoked_at IS NULL`,
  );
  return active;
}

export async function insertKey(
  tx: Db,
  companyId: string,
  k: { id: string; prefix: string; keyHash: Buffer; name: string | null; permissions: string[] },
): Promise<KeyRecord> {
  const rows = await tx.query<KeyRecord>(sql`
          INSERT INTO api_keys (company_id, id, prefix, key_hash, name, permissions)
          VALUES (${companyId}, ${k.id}, ${k.prefix}, ${k.keyHash}, ${k.name}, ${sql.param(k.permissions)}::text[])
          RETURNING ${KEY_COLUMNS}`);
  return rows[0];
}

export async function listKeys(db: Db, companyId: string): Promise<KeyRecord[]> {
  return db.query<KeyRecord>(sql`SELECT ${KEY_COLUMNS} FROM api_keys WHERE company_id = ${companyId} ORDER BY created_at, id`);
}

/** Revokes by key id or visible prefix (a revoked key keeps its first revocation time); undefined when none matches. */
export async function revokeKey(db: Db, companyId: string, idOrPrefix: string, at: string): Promise<KeyRecord | undefined> {
  const rows = await db.query<KeyRecord>(sql`
        UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${at}::timestamptz)
        WHERE company_id = ${companyId} AND (id = ${idOrPrefix} OR prefix = ${idOrPrefix})
        RETURNING ${KEY_COLUMNS}`);
  return rows[0];
}

/** A key found by its hash, with what decides whether it may be served. */
export type KeyByHash = Pick<ApiKeyRow, 'id' | 'company_id' | 'prefix' | 'key_hash' | 'permissions'> &
  Pick<CompanyRow, 'status' | 'plan'> & { revoked: boolean; stale: boolean };

export async function findKeyByHash(db: Db, hash: Buffer): Promise<KeyByHash | undefined> {
  const rows = await db.query<KeyByHash>(
    sql`SELECT k.id, k.company_id, k.prefix, k.key_hash, k.permissions, k.revoked_at IS NOT NULL AS revoked, c.status, c.plan,
                   (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute') AS stale
            FROM api_keys k JOIN companies c ON c.id = k.company_id
            WHERE k.key_hash = ${hash}`,
    'auth_key_by_hash',
  );
  return rows[0];
}

/** What `keyChecked` adds to a statement's row: the key's check, and whether the statement had a row at all. */
export interface KeyCheckColumns {
  /** the key still usable (not revoked, its company active and on the commerce plan); NULL when key or company is gone */
  key_ok: boolean | null;
  /** true when the statement returned a row (the row's other columns are NULL when it did not) */
  key_checked_row: boolean | null;
}

/**
 * `statement` (one row at most) with the key's check beside it, in one statement: always one row. The same rules as
 * `findKeyByHash` and the service's `authenticate`, read where the statement runs.
 */
export function keyChecked(statement: SQL, companyId: string, keyId: string): SQL {
  return sql`SELECT (SELECT k.revoked_at IS NULL AND kc.status = 'active' AND kc.plan = 'commerce'
                     FROM api_keys k JOIN companies kc ON kc.id = k.company_id
                     WHERE k.company_id = ${companyId} AND k.id = ${keyId}) AS key_ok, checked.*
    FROM (SELECT 1) AS one LEFT JOIN (SELECT true AS key_checked_row, stmt.* FROM (${statement}) AS stmt) AS checked ON true`;
}
