import { z } from 'zod';
import { queryInt } from './validation.js';

/**
 * The audit trail as its readers see it (REST `GET /audit` with the `audit` permission, CLI `audit list`): who did what
 * and when, newest first, paged by a cursor over the entries' order (`before`). No entry holds personal data or a
 * secret: subjects are ids, `detail` names fields and holds non-personal values (flags, numbers, event names).
 */

/** Page size of GET /audit, as the spec's other lists. */
export const AUDIT_PAGE = { min: 1, max: 50, default: 20 } as const;

/** An entry's position in the company's trail: a positive whole number, newer entries larger. */
const CURSOR = /^[1-9]\d{0,17}$/;
/** An action's name: lower-case words joined by dots and underscores (`key.created`, `webhook.secret_rotated`). */
const ACTION = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/;

export const auditQuery = z.object({
  limit: queryInt(AUDIT_PAGE.min, AUDIT_PAGE.max, AUDIT_PAGE.default).describe(
    `Entries per page, ${AUDIT_PAGE.min}-${AUDIT_PAGE.max} (default ${AUDIT_PAGE.default}).`,
  ),
  before: z
    .string()
    .regex(CURSOR, 'must be the next_before of a previous page (a positive whole number)')
    .optional()
    .describe("Entries older than this cursor: the previous page's `next_before`. Left out: the newest entries."),
  action: z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(ACTION, 'must be an action name such as key.created')
    .optional()
    .describe('Only entries of this action, e.g. `key.created` or `webhook.removed`.'),
});
export type AuditQuery = z.output<typeof auditQuery>;

export const auditEntrySchema = z.object({
  id: z.string().describe('The entry id (aud_…).'),
  at: z.string().describe('When the action was taken, ISO 8601.'),
  actor: z
    .object({
      kind: z.enum(['cli', 'key', 'service']).describe('cli: an admin command; key: an API key; service: a rule the service applied.'),
      name: z.string().describe("The CLI user, the key's visible prefix (cok_…), or the rule's name."),
    })
    .describe('Who acted.'),
  action: z.string().describe('What was done, e.g. `key.created`, `webhook.added`, `cod.settings_set`.'),
  subject: z
    .object({ kind: z.string(), id: z.string() })
    .nullable()
    .describe('What it was done to (a key, a webhook endpoint, a customer id…), or null for company-wide settings.'),
  detail: z.record(z.string(), z.unknown()).describe('Field names changed and non-personal values; never personal data nor secrets.'),
});
export type AuditEntryView = z.infer<typeof auditEntrySchema>;

/** A page of the trail: newest first; `next_before` continues it while `has_more`. */
export const auditPageSchema = z.object({
  data: z.array(auditEntrySchema),
  count: z.number().int(),
  limit: z.number().int(),
  has_more: z.boolean(),
  next_before: z.string().nullable().describe('Pass as `before` for the next (older) page; null on the last page.'),
});
export type AuditPage = z.infer<typeof auditPageSchema>;
