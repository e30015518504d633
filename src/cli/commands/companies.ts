import { bool, oneOf, parse, str, UsageError, type Values } from '../args.js';
import type { CommandGroup } from '../command.js';
import { printTable, show, type Column } from '../output.js';
import type { TaxProfilePatch } from '../../companies/tax-profile.service.js';

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

const TAX_FLAGS = {
  'legal-name': { type: 'string' },
  'trade-name': { type: 'string' },
  gstin: { type: 'string' },
  address1: { type: 'string' },
  address2: { type: 'string' },
  city: { type: 'string' },
  state: { type: 'string' },
  pincode: { type: 'string' },
  prefix: { type: 'string' },
} as const;

/** Flags given -> profile fields; `none` clears an optional one (`--gstin none`: an unregistered supplier). */
function taxPatch(values: Values): TaxProfilePatch {
  const patch: TaxProfilePatch = {};
  const set = (flag: keyof typeof TAX_FLAGS, field: keyof TaxProfilePatch, clearable: boolean) => {
    const v = str(values[flag]);
    if (v === undefined) return;
    (patch as Record<string, string | null>)[field] = clearable && v.trim().toLowerCase() === 'none' ? null : v;
  };
  set('legal-name', 'legal_name', false);
  set('trade-name', 'trade_name', true);
  set('gstin', 'gstin', true);
  set('address1', 'address_line1', false);
  set('address2', 'address_line2', true);
  set('city', 'city', false);
  set('state', 'state', false);
  set('pincode', 'pincode', false);
  set('prefix', 'invoice_prefix', false);
  return patch;
}

const TAX_COLUMNS: Column[] = [
  { key: 'legal_name', title: 'LEGAL NAME' },
  { key: 'trade_name', title: 'TRADE NAME' },
  { key: 'gstin', title: 'GSTIN' },
  { key: 'state', title: 'STATE' },
  { key: 'invoice_prefix', title: 'PREFIX' },
];

/** `company create|list|update|tax-profile`. */
export const companyCommands: CommandGroup = {
  'company create': {
    usage: 'company create --name <name> [--slug <slug>] [--status active|inactive] [--plan commerce|messaging] [--auto-booking true|false]',
    summary: 'create a company',
    async run(args, ctx) {
      const { values } = parse(args, companyFlags);
      const name = str(values.name);
      if (!name) throw new UsageError('--name is required');
      const company = await ctx.services.companies.create(ctx.actor, { ...companyPatch(values), name, slug: str(values.slug) });
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
      const company = await ctx.services.companies.update(pos[0], ctx.actor, companyPatch(values));
      show(ctx, company, COMPANY_COLUMNS, [company]);
    },
  },
  'company tax-profile': {
    usage:
      'company tax-profile <id|slug> [--legal-name <name>] [--trade-name <name|none>] [--gstin <GSTIN|none>] [--address1 <line>] [--address2 <line|none>] ' +
      '[--city <city>] [--state <state>] [--pincode <PIN>] [--prefix <1-3 letters, default INV>]',
    summary: 'show or set the seller details printed on GST invoices (no GSTIN: invoices as an unregistered supplier, no GST)',
    async run(args, ctx) {
      const { values, pos } = parse(args, TAX_FLAGS, ['id|slug']);
      const company = await ctx.services.companies.get(pos[0]);
      const patch = taxPatch(values);
      const profile = Object.keys(patch).length
        ? await ctx.services.taxProfiles.set(company.id, ctx.actor, patch)
        : await ctx.services.taxProfiles.get(company.id);
      if (!profile) {
        ctx.out(ctx.json ? 'null' : `${company.slug} has no tax profile yet: its invoices name the company only, as an unregistered supplier`);
        return;
      }
      if (ctx.json) ctx.out(JSON.stringify(profile, null, 2));
      else
        ctx.out(
          `${printTable([profile], TAX_COLUMNS)}\n${[profile.address_line1, profile.address_line2, `${profile.city}, ${profile.state} - ${profile.pincode}`].filter(Boolean).join('\n')}`,
        );
    },
  },
};
