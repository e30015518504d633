import { auditQuery, AUDIT_PAGE } from '../../contract/audit.js';
import { toValidationError } from '../../contract/validation.js';
import { parse, str } from '../args.js';
import { companyId, type CommandGroup } from '../command.js';
import { printTable } from '../output.js';

/** `audit list`: a company's audit trail, newest first, as GET /audit pages it. */
export const auditCommands: CommandGroup = {
  'audit list': {
    usage: `audit list --company <id|slug> [--limit <${AUDIT_PAGE.min}-${AUDIT_PAGE.max}, default ${AUDIT_PAGE.default}>] [--before <cursor>] [--action <name>]`,
    summary: 'who did what and when (keys, webhooks, settings, data rights), newest first; --before continues with older entries',
    async run(args, ctx) {
      const { values } = parse(args, { company: { type: 'string' }, limit: { type: 'string' }, before: { type: 'string' }, action: { type: 'string' } });
      const company = (await companyId(ctx, values))!;
      const query = auditQuery.safeParse({ limit: str(values.limit), before: str(values.before), action: str(values.action) });
      if (!query.success) throw toValidationError(query.error);
      const page = await ctx.services.audit.list(company, query.data);
      if (ctx.json) return ctx.out(JSON.stringify(page, null, 2));
      const rows = page.data.map((e) => ({
        at: e.at,
        actor: `${e.actor.kind} ${e.actor.name}`,
        action: e.action,
        subject: e.subject ? `${e.subject.kind} ${e.subject.id}` : null,
        detail: Object.keys(e.detail).length ? JSON.stringify(e.detail) : null,
      }));
      ctx.out(
        printTable(
          rows,
          ['at', 'actor', 'action', 'subject', 'detail'].map((k) => ({ key: k, title: k.toUpperCase() })),
        ),
      );
      if (page.next_before) ctx.err(`older entries: audit list --company ${str(values.company)} --before ${page.next_before}\n`);
    },
  },
};
