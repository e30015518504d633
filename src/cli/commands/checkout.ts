import { bool, parse, str, type Flags, type Values } from '../args.js';
import { companyId, withHint, type CommandContext, type CommandGroup } from '../command.js';
import { show, type Column } from '../output.js';

const RATE_COLUMNS: Column[] = [
  { key: 'id', title: 'ID' },
  { key: 'title', title: 'TITLE' },
  { key: 'level', title: 'LEVEL' },
  { key: 'zone', title: 'ZONE' },
  { key: 'price', title: 'PRICE' },
  { key: 'free_above', title: 'FREE ABOVE' },
  { key: 'free_skus', title: 'FREE WITH' },
  { key: 'active', title: 'ACTIVE' },
];
const CODE_COLUMNS: Column[] = [
  { key: 'code', title: 'CODE' },
  { key: 'title', title: 'TITLE' },
  { key: 'off', title: 'OFF' },
  { key: 'min_order', title: 'MIN ORDER' },
  { key: 'valid', title: 'VALID' },
  { key: 'used', title: 'USED' },
  { key: 'per_customer_limit', title: 'PER CUSTOMER' },
  { key: 'active', title: 'ACTIVE' },
];

type Rate = Awaited<ReturnType<CommandContext['services']['shippingRates']['create']>>;
type Code = Awaited<ReturnType<CommandContext['services']['discountCodes']['create']>>;

const rateRow = (r: Rate) => ({
  ...r,
  zone: r.zone_kind === 'everywhere' ? 'everywhere' : `${r.zone_kind}: ${r.zone_values.join(', ')}`,
  free_skus: r.free_skus.join(', ') || null,
});
const codeRow = (c: Code) => ({
  ...c,
  off: c.kind === 'percentage' ? `${c.value}%` : `₹${c.value}`,
  valid: c.starts_at || c.ends_at ? `${c.starts_at ?? '…'} to ${c.ends_at ?? '…'}` : 'always',
  used: c.usage_limit === null ? String(c.used_count) : `${c.used_count}/${c.usage_limit}`,
});

const companyFlag = { company: { type: 'string' } } as const;
const RATE_FLAGS = {
  ...companyFlag,
  title: { type: 'string' },
  description: { type: 'string' },
  level: { type: 'string' },
  'zone-kind': { type: 'string' },
  'zone-values': { type: 'string' },
  price: { type: 'string' },
  'free-above': { type: 'string' },
  'free-skus': { type: 'string' },
} as const satisfies Flags;
const CODE_FLAGS = {
  ...companyFlag,
  title: { type: 'string' },
  kind: { type: 'string' },
  value: { type: 'string' },
  'min-order': { type: 'string' },
  'starts-at': { type: 'string' },
  'ends-at': { type: 'string' },
  'usage-limit': { type: 'string' },
  'per-customer-limit': { type: 'string' },
} as const satisfies Flags;

/** "a, b" -> ["a", "b"]; "" -> []. */
const list = (value: string | undefined) =>
  value
    ?.split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
/** An optional setting: `none` clears it. */
const orNone = (value: string | undefined) => (value === 'none' ? null : value);

/** The rate's fields from the flags given; a flag not given is left out (a change keeps that field). */
const rateFields = (v: Values) => ({
  title: str(v.title),
  description: orNone(str(v.description)),
  level: str(v.level),
  zone_kind: str(v['zone-kind']),
  zone_values: list(str(v['zone-values'])),
  price: str(v.price),
  free_above: orNone(str(v['free-above'])),
  free_skus: list(str(v['free-skus'])),
});
const codeFields = (v: Values) => ({
  title: str(v.title),
  kind: str(v.kind),
  value: str(v.value),
  min_order: orNone(str(v['min-order'])),
  starts_at: orNone(str(v['starts-at'])),
  ends_at: orNone(str(v['ends-at'])),
  usage_limit: orNone(str(v['usage-limit'])),
  per_customer_limit: orNone(str(v['per-customer-limit'])),
});

const RATE_OPTIONS =
  '--title <text> --level standard|express --zone-kind pincodes|states|countries|everywhere [--zone-values <v,v>] --price <rupees> [--free-above <rupees>] [--free-skus <sku,sku>] [--description <text>]';
const CODE_OPTIONS =
  '--title <text> --kind percentage|fixed --value <percent|rupees> [--min-order <rupees>] [--starts-at <ISO time>] [--ends-at <ISO time>] [--usage-limit <n>] [--per-customer-limit <n>]';

/** `shipping-rate add|list|update|remove` and `discount add|list|update|disable`: what a checkout charges and takes off. */
export const checkoutCommands: CommandGroup = {
  'shipping-rate add': {
    usage: `shipping-rate add --company <id|slug> <rate id> ${RATE_OPTIONS}`,
    summary:
      'add a shipping rate: per level (standard, express) a destination gets the most specific zone holding it (PIN codes, states, countries, everywhere)',
    async run(args, ctx) {
      const { values, pos } = parse(args, RATE_FLAGS, ['rate id']);
      const call = ctx.services.shippingRates.create((await companyId(ctx, values))!, ctx.actor, { id: pos[0], ...rateFields(values) });
      const rate = await withHint(call, 'id', 'change it with `shipping-rate update`');
      show(ctx, rate, RATE_COLUMNS, [rateRow(rate)]);
    },
  },
  'shipping-rate list': {
    usage: 'shipping-rate list --company <id|slug> [--active]',
    summary: "list a company's shipping rates (with --active, only those checkouts offer)",
    async run(args, ctx) {
      const { values } = parse(args, { ...companyFlag, active: { type: 'boolean' } });
      const rates = await ctx.services.shippingRates.list((await companyId(ctx, values))!, values.active === true);
      show(ctx, rates, RATE_COLUMNS, rates.map(rateRow));
    },
  },
  'shipping-rate update': {
    usage: `shipping-rate update --company <id|slug> <rate id> [any of: ${RATE_OPTIONS.replace(/[[\]]/g, '')}] [--active true|false]; "none" clears --free-above or --description`,
    summary: 'change the fields given of a shipping rate',
    async run(args, ctx) {
      const { values, pos } = parse(args, { ...RATE_FLAGS, active: { type: 'string' } }, ['rate id']);
      const patch = { ...rateFields(values), active: bool(str(values.active), 'active') };
      const rate = await ctx.services.shippingRates.update((await companyId(ctx, values))!, ctx.actor, pos[0], patch);
      show(ctx, rate, RATE_COLUMNS, [rateRow(rate)]);
    },
  },
  'shipping-rate remove': {
    usage: 'shipping-rate remove --company <id|slug> <rate id>',
    summary: 'stop offering a shipping rate (kept inactive; `shipping-rate add` with its id makes it anew)',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['rate id']);
      const rate = await ctx.services.shippingRates.remove((await companyId(ctx, values))!, ctx.actor, pos[0]);
      show(ctx, rate, RATE_COLUMNS, [rateRow(rate)]);
    },
  },
  'discount add': {
    usage: `discount add --company <id|slug> <code> ${CODE_OPTIONS}`,
    summary: 'add a discount code (buyers type it in any case; codes apply in the order entered, each to what the earlier left)',
    async run(args, ctx) {
      const { values, pos } = parse(args, CODE_FLAGS, ['code']);
      const call = ctx.services.discountCodes.create((await companyId(ctx, values))!, ctx.actor, { code: pos[0], ...codeFields(values) });
      const code = await withHint(call, 'code', 'change it with `discount update`');
      show(ctx, code, CODE_COLUMNS, [codeRow(code)]);
    },
  },
  'discount list': {
    usage: 'discount list --company <id|slug> [--active]',
    summary: "list a company's discount codes with their use (with --active, only those not disabled)",
    async run(args, ctx) {
      const { values } = parse(args, { ...companyFlag, active: { type: 'boolean' } });
      const codes = await ctx.services.discountCodes.list((await companyId(ctx, values))!, values.active === true);
      show(ctx, codes, CODE_COLUMNS, codes.map(codeRow));
    },
  },
  'discount update': {
    usage: `discount update --company <id|slug> <code> [any of: ${CODE_OPTIONS.replace(/[[\]]/g, '')}] [--active true|false]; "none" clears an optional setting`,
    summary: 'change the fields given of a discount code',
    async run(args, ctx) {
      const { values, pos } = parse(args, { ...CODE_FLAGS, active: { type: 'string' } }, ['code']);
      const patch = { ...codeFields(values), active: bool(str(values.active), 'active') };
      const code = await ctx.services.discountCodes.update((await companyId(ctx, values))!, ctx.actor, pos[0], patch);
      show(ctx, code, CODE_COLUMNS, [codeRow(code)]);
    },
  },
  'discount disable': {
    usage: 'discount disable --company <id|slug> <code>',
    summary: 'stop a discount code applying to checkouts (kept: orders name it; `discount update --active true` turns it back on)',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['code']);
      const code = await ctx.services.discountCodes.disable((await companyId(ctx, values))!, ctx.actor, pos[0]);
      show(ctx, code, CODE_COLUMNS, [codeRow(code)]);
    },
  },
};
