/**
 * The one owner of "the key checked in the request's first statement". A key this instance has authenticated before
 * is served from memory (keys.service.ts) with its check owed: the request's first statement through a `TenantReader`
 * carries the check and settles it, which saves the key's own round trip. Where that cannot be relied on (a tool
 * that writes, or one that does not opt in) the key is authenticated in full before the work runs (`settleInFull`),
 * and a request that ends with its check still owed is authenticated in full before its answer leaves
 * (`authenticateUnsettled`, src/http/auth.ts). Domain code sees only the reader.
 */
import type { SQL } from 'drizzle-orm';
import { AppError } from '../contract/errors.js';
import type { Db } from '../db/index.js';
import { keyChecked, type KeyCheckColumns } from './keys.queries.js';

/** The one 401 message: missing, malformed, unknown and revoked keys are answered alike. */
export const UNAUTHORIZED = 'missing or invalid API key: send it as X-API-KEY or Authorization: Bearer <key>';

/** What a full authentication says (keys.service.ts `authenticate`). */
export type FullAuthentication = { ok: true } | { ok: false; reason: 'unauthorized' } | { ok: false; reason: 'forbidden'; message: string };

interface Owed {
  settled: boolean;
  authenticate: () => Promise<FullAuthentication>;
  /** the full authentication, once asked for: a request reads the key by its hash at most once */
  inFull?: Promise<FullAuthentication>;
}

/** The checks owed, by the tenant object of the request that owes it (one object per request served from memory). */
const owed = new WeakMap<object, Owed>();

/** Marks `tenant` (this request's, served from memory) as owing its key's check; `authenticate` checks it in full. */
export function deferKeyCheck(tenant: object, authenticate: () => Promise<FullAuthentication>): void {
  owed.set(tenant, { settled: false, authenticate });
}

/** Whether the request's key is still to be checked against the database. */
export function keyCheckOwed(tenant: object | null | undefined): boolean {
  const check = tenant ? owed.get(tenant) : undefined;
  return check !== undefined && !check.settled;
}

/**
 * For a key no statement settled, its full authentication (run once per request, whoever asks first); undefined when
 * nothing is owed. A good answer settles the check. Throws what the key's read throws (database unreachable).
 */
export async function authenticateUnsettled(tenant: object | null | undefined): Promise<FullAuthentication | undefined> {
  const check = tenant ? owed.get(tenant) : undefined;
  if (!check || check.settled) return undefined;
  const outcome = await (check.inFull ??= check.authenticate());
  if (outcome.ok) check.settled = true;
  return outcome;
}

/**
 * Authenticates an owed key in full before work that may not rely on its first statement (an MCP tool that writes, or
 * that does not opt in): a refusal, or a failure to read the key, throws the 401, and the request's answer is then
 * replaced by what the full authentication says (401 or 403, src/http/auth.ts). Nothing to do when nothing is owed.
 */
export async function settleInFull(tenant: object): Promise<void> {
  let outcome: FullAuthentication | undefined;
  try {
    outcome = await authenticateUnsettled(tenant);
  } catch {
    outcome = { ok: false, reason: 'unauthorized' }; // the failure itself is answered and logged when the answer leaves
  }
  if (outcome && !outcome.ok) throw new AppError('unauthorized', UNAUTHORIZED);
}

/** Statements for one company, as one request's key reads them (or the company alone: an event, a worker). */
export interface TenantReader {
  readonly companyId: string;
  /**
   * The statement's first row, or undefined when it has none. While the request's key check is owed, the statement
   * carries it and settles it: a refused key throws the 401 before the row is returned (and the answer is replaced as
   * `settleInFull` says). A statement read this way takes one row at most and names no column `key_ok`.
   */
  one<T>(statement: SQL, name: string): Promise<T | undefined>;
}

/** A reader for `tenant`'s company; its statements carry the key's check while one is owed. */
export function tenantReader(db: Db, tenant: { companyId: string; keyId?: string }): TenantReader {
  const { companyId } = tenant;
  return {
    companyId,
    async one<T>(statement: SQL, name: string): Promise<T | undefined> {
      const check = owed.get(tenant);
      if (!check || check.settled || !tenant.keyId) return (await db.query<T>(statement, name))[0];
      const rows = await db.query<T & KeyCheckColumns>(keyChecked(statement, companyId, tenant.keyId), `key_checked_${name}`);
      const { key_ok, key_checked_row, ...row } = rows[0];
      if (key_ok !== true) throw new AppError('unauthorized', UNAUTHORIZED);
      check.settled = true;
      return key_checked_row ? (row as T) : undefined;
    },
  };
}
