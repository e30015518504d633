import { sql, type SQL } from 'drizzle-orm';
import { AppError } from '../contract/errors.js';

/** The one 401 message: missing, malformed, unknown and revoked keys are answered alike. */
export const UNAUTHORIZED = 'missing or invalid API key: send it as X-API-KEY or Authorization: Bearer <key>';

/**
 * A key known to this instance, not yet checked against the database in this request. Routes that opt in
 * (`keyInStatement`) check it inside their first statement (`keyOkSql`, then `settleKey`), which saves the key's own
 * round trip; a request that ends without settling it is authenticated in full before its answer leaves (auth.ts).
 */
export interface KeyCheck {
  pending: boolean;
}

/** The company a statement reads and the key that reads it. */
export interface KeyOwner {
  companyId: string;
  keyId: string;
}

/**
 * `key_ok`: whether the key is still usable (not revoked, its company active and on the commerce plan), read in the
 * statement that carries it; NULL when the key or company is gone. The same rules as `authenticate`.
 */
export function keyOkSql(companyId: string, keyId: string): SQL {
  return sql`(SELECT k.revoked_at IS NULL AND kc.status = 'active' AND kc.plan = 'commerce'
              FROM api_keys k JOIN companies kc ON kc.id = k.company_id
              WHERE k.company_id = ${companyId} AND k.id = ${keyId}) AS key_ok`;
}

/**
 * Settles a pending key check with what the statement read. A refusal throws a 401; the request's answer is then
 * replaced by what a full authentication says (401 or 403), so no refusal depends on this statement's wording.
 */
export function settleKey(tenant: { check?: KeyCheck }, keyOk: boolean | null | undefined): void {
  const check = tenant.check;
  if (!check?.pending) return;
  if (keyOk !== true) throw new AppError('unauthorized', UNAUTHORIZED);
  check.pending = false;
}
