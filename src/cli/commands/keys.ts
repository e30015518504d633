import { PERMISSIONS, type Permission } from '../../keys/keys.service.js';
import { oneOf, parse, str, UsageError } from '../args.js';
import type { CommandGroup } from '../command.js';
import { printTable, show, type Column } from '../output.js';

const KEY_COLUMNS: Column[] = [
  { key: 'id', title: 'ID' },
  { key: 'prefix', title: 'PREFIX' },
  { key: 'name', title: 'NAME' },
  { key: 'permissions', title: 'PERMISSIONS' },
  { key: 'created_at', title: 'CREATED' },
  { key: 'last_used_at', title: 'LAST USED' },
  { key: 'revoked_at', title: 'REVOKED' },
];

const companyFlag = { company: { type: 'string' } } as const;

/** `key create|list|revoke`. */
export const keyCommands: CommandGroup = {
  'key create': {
    usage: 'key create --company <id|slug> [--name <label>] [--permission webhooks|catalogue|ucp]',
    summary:
      'create an API key (printed once, never again; at most 5 active per company); --permission webhooks lets it manage webhooks, --permission catalogue set stock, --permission ucp the UCP business settings and hosts',
    async run(args, ctx) {
      const { values } = parse(args, { ...companyFlag, name: { type: 'string' }, permission: { type: 'string', multiple: true } });
      if (!str(values.company)) throw new UsageError('--company is required');
      const extra = ((values.permission as string[] | undefined) ?? [])
        .flatMap((p) => p.split(','))
        .map((p) => oneOf(p.trim(), PERMISSIONS, '--permission') as Permission);
      const company = await ctx.services.companies.get(str(values.company)!);
      const { key, record } = await ctx.services.keys.create(company.id, ctx.actor, str(values.name), extra);
      if (ctx.json) ctx.out(JSON.stringify({ key, ...record }, null, 2));
      else {
        ctx.out(printTable([record], KEY_COLUMNS));
        ctx.out(`\nAPI key for ${company.slug} (shown only this once; store it now):\n\n    ${key}\n`);
      }
    },
  },
  'key list': {
    usage: 'key list --company <id|slug>',
    summary: "list a company's keys (visible prefix only)",
    async run(args, ctx) {
      const { values } = parse(args, companyFlag);
      if (!str(values.company)) throw new UsageError('--company is required');
      const company = await ctx.services.companies.get(str(values.company)!);
      const keys = await ctx.services.keys.list(company.id);
      show(ctx, keys, KEY_COLUMNS, keys);
    },
  },
  'key revoke': {
    usage: 'key revoke --company <id|slug> <key id|prefix>',
    summary: 'revoke a key; refused from the very next request',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['key id|prefix?']);
      if (!str(values.company)) throw new UsageError('--company is required');
      if (!pos[0]) throw new UsageError('name the key: its id (key_…) or prefix (cok_…)');
      const company = await ctx.services.companies.get(str(values.company)!);
      const record = await ctx.services.keys.revoke(company.id, ctx.actor, pos[0]);
      show(ctx, record, KEY_COLUMNS, [record]);
    },
  },
};
