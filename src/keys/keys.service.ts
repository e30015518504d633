import { createHash, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
import { AppError, notFound } from '../contract/errors.js';
import { newId, randomAlnum } from '../lib/ids.js';
import { deferKeyCheck } from './key-check.js';
import { countActiveKeys, findKeyByHash, insertKey, listKeys, lockCompanyForKeys, revokeKey, touchKey, type KeyRecord } from './keys.queries.js';

/** `cok_<12 letters/digits>_<32 letters/digits>`: a fixed prefix, a public id and a secret. */
export const KEY_PREFIX = 'cok';
const KEY_PATTERN = /^cok_[A-Za-z0-9]{12}_[A-Za-z0-9]{32}$/;
export const MAX_ACTIVE_KEYS = 5;

/**
 * What a key may reach. `commerce` is today's access (catalogue, orders, customers, the agent tools) and every
 * key's default; `webhooks` (manage webhook endpoints), `catalogue` (set stock), `ucp` (the company's UCP business
 * settings and hosts), `cod` (the company's cash-on-delivery settings), `privacy` (customers' data rights: access, correction,
 * erasure, consent records; the privacy settings) and `audit` (read the audit trail) are extras given only at `key create`. A route names the permission it needs (route config
 * `permission`, default `commerce`); a key without it gets 403 `forbidden`.
 */
export const PERMISSIONS = ['commerce', 'webhooks', 'catalogue', 'ucp', 'cod', 'privacy', 'audit'] as const;
export type Permission = (typeof PERMISSIONS)[number];
export const DEFAULT_PERMISSIONS: readonly Permission[] = ['commerce'];

/** Who a request acts for; every service call takes it first. */
export interface Tenant {
  companyId: string;
  keyId: string;
  /** Visible part of the key (`cok_XXXXXXXXXXXX`), safe for logs. */
  keyPrefix: string;
  permissions: readonly string[];
}

/** The audit trail's name for a request's key: its visible prefix (never the secret). */
export function keyActor(tenant: Pick<Tenant, 'keyPrefix'>): Actor {
  return { kind: 'key', name: tenant.keyPrefix };
}

/** Keys this instance has authenticated, by hash: at most this many, least recently used dropped first. */
export const KNOWN_KEYS_MAX = 10_000;
const TOUCH_EVERY_MS = 60_000;

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export type AuthOutcome = { ok: true; tenant: Tenant } | { ok: false; reason: 'unauthorized' } | { ok: false; reason: 'forbidden'; message: string };

export function createKeyService({ db, knownKeysMax = KNOWN_KEYS_MAX }: { db: Db; knownKeysMax?: number }) {
  /** Keys whose last_used_at write is in flight from this instance: a burst of requests writes it once. */
  const touching = new Set<string>();
  /** Authenticated keys by base64 hash; insertion order is recency (a hit re-inserts). */
  const known = new Map<string, { tenant: Tenant; touchedAt: number }>();

  /**
   * last_used_at is informational: written at most once a minute per key, off the request's path. One write per
   * instance at a time, and one that finds it fresh skips: api_keys is a reference table on Citus, where a burst of
   * parallel requests writing the same row on every node had a key creation cancelled as a distributed deadlock.
   */
  function touch(companyId: string, keyId: string): void {
    if (touching.has(keyId)) return;
    touching.add(keyId);
    touchKey(db, companyId, keyId)
      .catch(() => {})
      .finally(() => touching.delete(keyId));
  }
  const service = {
    /** Creates a key and returns it in clear: the only time it exists outside the caller's hands. */
    async create(companyId: string, actor: Actor, name?: string, extra: readonly Permission[] = []): Promise<{ key: string; record: KeyRecord }> {
      const permissions = [...new Set([...DEFAULT_PERMISSIONS, ...extra])];
      return db.tx(async (tx) => {
        // The company row lock serialises key creation per company, so a 6th key cannot slip in.
        if (!(await lockCompanyForKeys(tx, companyId))) throw notFound(`no company with id "${companyId}"`);
        const active = await countActiveKeys(tx, companyId);
        if (active >= MAX_ACTIVE_KEYS) {
          throw new AppError('validation_failed', `company already has ${MAX_ACTIVE_KEYS} active keys (the most allowed); revoke one before creating another`);
        }
        const publicId = randomAlnum(12);
        const key = `${KEY_PREFIX}_${publicId}_${randomAlnum(32)}`;
        const record = await insertKey(tx, companyId, {
          id: newId('key'),
          prefix: `${KEY_PREFIX}_${publicId}`,
          keyHash: hashKey(key),
          name: name ?? null,
          permissions,
        });
        // the audit trail names the key by its visible prefix, never its secret
        await recordAudit(tx, companyId, actor, {
          action: 'key.created',
          subjectKind: 'key',
          subjectId: record.id,
          detail: { prefix: record.prefix, name: record.name, permissions },
        });
        return { key, record };
      });
    },

    async list(companyId: string): Promise<KeyRecord[]> {
      return listKeys(db, companyId);
    },

    /** Revokes by key id or visible prefix; effective from the very next request on every instance. */
    async revoke(companyId: string, actor: Actor, idOrPrefix: string): Promise<KeyRecord> {
      return db.tx(async (tx) => {
        const record = await revokeKey(tx, companyId, idOrPrefix, new Date().toISOString());
        if (!record) throw notFound(`company ${companyId} has no key "${idOrPrefix}"`);
        await recordAudit(tx, companyId, actor, { action: 'key.revoked', subjectKind: 'key', subjectId: record.id, detail: { prefix: record.prefix } });
        return record;
      });
    },

    /**
     * Looks a key up by its hash (never by the visible part, so timing reveals nothing about which
     * prefixes exist) and checks the company. A revocation counts from the next request: without `deferred` every
     * call reads the database; with it, a key this instance has authenticated before is answered from memory, a new
     * tenant object whose check is owed: key-check.ts settles it against the database within the request.
     */
    async authenticate(key: string, { deferred = false }: { deferred?: boolean } = {}): Promise<AuthOutcome> {
      if (!isWellFormedKey(key)) return { ok: false, reason: 'unauthorized' };
      const hash = hashKey(key);
      const id = hash.toString('base64');
      if (deferred) {
        const entry = known.get(id);
        if (entry) {
          known.delete(id); // most recently used last
          known.set(id, entry);
          if (Date.now() - entry.touchedAt > TOUCH_EVERY_MS) {
            entry.touchedAt = Date.now();
            touch(entry.tenant.companyId, entry.tenant.keyId);
          }
          const tenant = { ...entry.tenant };
          deferKeyCheck(tenant, () => service.authenticate(key));
          return { ok: true, tenant };
        }
      }
      const row = await findKeyByHash(db, hash);
      known.delete(id); // whatever the outcome, memory holds only what this read found
      if (!row || row.revoked || !timingSafeEqual(Buffer.from(row.key_hash), hash)) return { ok: false, reason: 'unauthorized' };
      if (row.status !== 'active') return { ok: false, reason: 'forbidden', message: 'this company account is not active' };
      if (row.plan !== 'commerce') {
        return { ok: false, reason: 'forbidden', message: "this company's plan does not include orders and inventory" };
      }
      if (row.stale) touch(row.company_id, row.id);
      const tenant: Tenant = { companyId: row.company_id, keyId: row.id, keyPrefix: row.prefix, permissions: row.permissions };
      // Company and permissions never change for a key (set at creation); revocation and the company's status and
      // plan do, and are read again by every statement that settles a check.
      if (known.size >= knownKeysMax) known.delete(known.keys().next().value!);
      known.set(id, { tenant, touchedAt: Date.now() });
      return { ok: true, tenant };
    },

    /** How many keys this instance holds in memory (tests, metrics). */
    knownKeys(): number {
      return known.size;
    },
  };
  return service;
}

export type KeyService = ReturnType<typeof createKeyService>;
