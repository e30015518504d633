import { createHash } from 'node:crypto';
import type { Db } from '../db/index.js';
import { claimIdempotencyKey, findIdempotencyRecord, releaseIdempotencyKey, settleIdempotencyKey } from './idempotency.queries.js';

/**
 * UCP's Idempotency-Key on every write: the first request with a key is answered and its answer kept; a repeat with
 * the same key and the same body gets that answer again, byte for byte, whatever happened since (a checkout completed
 * or cancelled in between); the same key with another body, or while the first is still being answered, is refused
 * (409). Only answers the business gave (2xx and 4xx) are kept; a fault frees the key for a retry.
 */

/** What the caller's operation answered. */
export interface Answer {
  status: number;
  body: string;
}

export type IdempotencyOutcome = { kind: 'answered'; answer: Answer; replayed: boolean } | { kind: 'conflict'; reason: 'different_request' | 'in_progress' };

/** A claim older than this is taken to belong to a request that died (its instance stopped) and may be taken over. */
const STALE_SECONDS = 60;

/** SHA-256 of the body's canonical JSON (keys sorted at every level): the same request in any key order is the same. */
export function requestHash(body: unknown): Buffer {
  return createHash('sha256')
    .update(canonicalJson(body ?? {}))
    .digest();
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Runs `operation` once per (company, scope, key). Without a key the operation simply runs. `scope` names the
 * operation and its resource (`POST checkout-sessions`, `PUT checkout-sessions/<id>`), so one key used on two
 * resources is two requests.
 */
export async function idempotent(
  db: Db,
  { companyId, scope, key, body }: { companyId: string; scope: string; key: string | undefined; body: unknown },
  operation: () => Promise<Answer>,
  retried = false,
): Promise<IdempotencyOutcome> {
  if (!key) return { kind: 'answered', answer: await operation(), replayed: false };
  const hash = requestHash(body);
  if (!(await claimIdempotencyKey(db, companyId, scope, key, hash, STALE_SECONDS))) {
    const record = await findIdempotencyRecord(db, companyId, scope, key);
    // Gone between the two statements: its first request failed and freed it; this one may run as the first (once).
    if (!record) return retried ? { kind: 'conflict', reason: 'in_progress' } : idempotent(db, { companyId, scope, key, body }, operation, true);
    if (!Buffer.from(record.request_hash).equals(hash)) return { kind: 'conflict', reason: 'different_request' };
    if (record.status_code === 0) return { kind: 'conflict', reason: 'in_progress' };
    return { kind: 'answered', answer: { status: record.status_code, body: record.response }, replayed: true };
  }
  let answer: Answer;
  try {
    answer = await operation();
  } catch (err) {
    await releaseIdempotencyKey(db, companyId, scope, key).catch(() => {});
    throw err;
  }
  if (answer.status >= 500) await releaseIdempotencyKey(db, companyId, scope, key);
  else await settleIdempotencyKey(db, companyId, scope, key, answer.status, answer.body);
  return { kind: 'answered', answer, replayed: false };
}
