import { sql } from 'drizzle-orm';
import { newId } from '../lib/ids.js';
import type { Db } from './client.js';
import type { AuditLogRow } from './schema/index.js';

/**
 * The audit trail (`audit_log`, migration 0032): one append-only row per administrative or data-rights action, written
 * in the transaction of the action where there is one. No domain owns it (keys, webhooks, settings and data rights all
 * write it), so its statements sit here. An entry never holds personal data: subjects are ids, `detail` names fields
 * and settings, never a customer's name, phone, e-mail or address, nor a secret.
 */

/** Who acted: a CLI user, a key (by its visible prefix), or the service applying a rule (by the rule's name). */
export interface Actor {
  kind: 'cli' | 'key' | 'service';
  name: string;
}

export interface AuditEntry {
  action: string;
  subjectKind?: string | null;
  subjectId?: string | null;
  detail?: Record<string, unknown>;
  at?: Date;
}

/** The audit trail's writer: one INSERT, in the caller's transaction when `db` is one. */
export async function recordAudit(db: Db, companyId: string, actor: Actor, entry: AuditEntry): Promise<void> {
  await db.query(sql`
    INSERT INTO audit_log (company_id, id, actor_kind, actor, action, subject_kind, subject_id, detail, at)
    VALUES (${companyId}, ${newId('aud')}, ${actor.kind}, ${actor.name}, ${entry.action}, ${entry.subjectKind ?? null},
            ${entry.subjectId ?? null}, ${JSON.stringify(entry.detail ?? {})}::jsonb, ${entry.at ?? new Date()})`);
}

export type AuditRecord = Pick<AuditLogRow, 'id' | 'seq' | 'actor_kind' | 'actor' | 'action' | 'subject_kind' | 'subject_id' | 'detail' | 'at'>;

/** A page of the company's trail, newest first: entries with seq below `before` when given. */
export async function listAudit(db: Db, companyId: string, opts: { limit: number; before?: string; action?: string }): Promise<AuditRecord[]> {
  return db.query<AuditRecord>(sql`
    SELECT id, seq, actor_kind, actor, action, subject_kind, subject_id, detail, at
      FROM audit_log
     WHERE company_id = ${companyId}
       ${opts.before ? sql`AND seq < ${opts.before}::bigint` : sql``}
       ${opts.action ? sql`AND action = ${opts.action}` : sql``}
     ORDER BY seq DESC
     LIMIT ${opts.limit}`);
}
