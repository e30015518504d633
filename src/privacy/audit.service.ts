import type { Db } from '../db/index.js';
import { listAudit, type AuditRecord } from '../db/audit-log.js';
import type { AuditEntryView, AuditPage, AuditQuery } from '../contract/audit.js';

const entryView = (r: AuditRecord): AuditEntryView => ({
  id: r.id,
  at: r.at.toISOString(),
  actor: { kind: r.actor_kind, name: r.actor },
  action: r.action,
  subject: r.subject_kind && r.subject_id ? { kind: r.subject_kind, id: r.subject_id } : null,
  detail: r.detail as Record<string, unknown>,
});

/**
 * Reading a company's audit trail (REST `GET /audit` with the `audit` permission, CLI `audit list`): newest first, a
 * page at a time, continued by the cursor of the last entry shown. Its writers are the actions themselves
 * (`recordAudit` in each action's transaction); nothing here changes an entry.
 */
export function createAuditService({ db }: { db: Db }) {
  return {
    async list(companyId: string, query: Pick<AuditQuery, 'limit' | 'before' | 'action'>): Promise<AuditPage> {
      // one more than asked: whether an older page exists, without counting the trail
      const rows = await listAudit(db, companyId, { limit: query.limit + 1, before: query.before, action: query.action });
      const page = rows.slice(0, query.limit);
      const hasMore = rows.length > query.limit;
      return { data: page.map(entryView), count: page.length, limit: query.limit, has_more: hasMore, next_before: hasMore ? page[page.length - 1].seq : null };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
