import { bool, oneOf, parse, str, UsageError, type Values } from '../args.js';
import type { CommandGroup } from '../command.js';
import { show, type Column } from '../output.js';

const COMPANY_COLUMNS: Column[] = [
  { key: 'id', title: 'ID' },
  { key: 'slug', title: 'SLUG' },
  { key: 'name', title: 'NAME' },
  { key: 'status', title: 'STATUS' },
  { key: 'plan', title: 'PLAN' },
  { key: 'auto_courier_booking', title: 'AUTO BOOKING' },
  { key: 'created_at', title: 'CREATED' },
];

const companyFlags = {
  name: { type: 'string' },
  slug: { type: 'string' },
  status: { type: 'string' },
  plan: { type: 'string' },
  'auto-booking': { type: 'string' },
} as const;

function companyPatch(values: Values) {
  return {
    name: str(values.name),
    status: oneOf(str(values.status), ['active', 'inactive'] as const, '--status'),
    plan: oneOf(str(values.plan), ['commerce', 'messaging'] as const, '--plan'),
    auto_courier_booking: bool(str(values['auto-booking']), 'auto-booking'),
  };
}

/** `company create|list|update`. */
export const companyCommands: CommandGroup = {
  'company create': {
    usage: 'company create --name <name> [--slug <slug>] [--status active|inactive] [--plan commerce|messaging] [--auto-booking true|false]',
    summary: 'create a company',
    async run(args, ctx) {
      const { values } = parse(args, companyFlags);
      const name = str(values.name);
      if (!name) throw new UsageError('--name is required');
      const company = await ctx.services.companies.create({ ...companyPatch(values), name, slug: str(values.slug) });
      show(ctx, company, COMPANY_COLUMNS, [company]);
    },
  },
  'company list': {
    usage: 'company list',
    summary: 'list companies',
    async run(args, ctx) {
      parse(args, {});
      const companies = await ctx.services.companies.list();
      show(ctx, companies, COMPANY_COLUMNS, companies);
    },
  },
  'company update': {
    usage: 'company update <id|slug> [--name <name>] [--status active|inactive] [--plan commerce|messaging] [--auto-booking true|false]',
    summary: 'change a company (status, plan, flags)',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlags, ['id|slug?']);
      if (!pos[0]) throw new UsageError('name the company: company update <id|slug>');
      if (values.slug) throw new UsageError('a slug cannot be changed');
      const company = await ctx.services.companies.update(pos[0], companyPatch(values));
      show(ctx, company, COMPANY_COLUMNS, [company]);
    },
  },
};
