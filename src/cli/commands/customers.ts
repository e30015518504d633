import { parse, str, UsageError, type Values } from '../args.js';
import { companyId, type CommandGroup } from '../command.js';
import { show } from '../output.js';

const REF_FLAGS = { company: { type: 'string' }, phone: { type: 'string' }, 'customer-id': { type: 'string' } } as const;
const REF_USAGE = '--company <id|slug> (--phone <number> | --customer-id <id>)';

/** The customer named by --phone or --customer-id (exactly one; the service checks the values). */
function customerRef(values: Values): { phone?: string; customer_id?: string } {
  const phone = str(values.phone);
  const id = str(values['customer-id']);
  if ((phone === undefined) === (id === undefined)) throw new UsageError('give exactly one of --phone and --customer-id');
  return phone !== undefined ? { phone } : { customer_id: id };
}

const ADDRESS_FLAGS = ['line1', 'line2', 'city', 'state', 'pincode', 'address-name', 'address-phone'] as const;

/**
 * `customer export|correct|erase`: a customer's data rights under the DPDP Act, for staff answering a request. The
 * audit trail names the operating-system user running the command.
 */
export const customerCommands: CommandGroup = {
  'customer export': {
    usage: `customer export ${REF_USAGE}`,
    summary: 'everything the company holds about a customer, as one JSON document (the right of access)',
    async run(args, ctx) {
      const { values } = parse(args, REF_FLAGS);
      const doc = await ctx.services.customerData.access((await companyId(ctx, values))!, ctx.actor, customerRef(values));
      ctx.out(JSON.stringify(doc, null, 2));
    },
  },
  'customer correct': {
    usage:
      `customer correct ${REF_USAGE} [--name <name>] [--email <address|"">] ` +
      '[--line1 <text> --city <city> --pincode <pin> [--line2 <text>] [--state <state>] [--address-name <name>] [--address-phone <number>]]',
    summary: "correct a customer's name, e-mail or address (the address also on their orders not yet shipped)",
    async run(args, ctx) {
      const { values } = parse(args, {
        ...REF_FLAGS,
        name: { type: 'string' },
        email: { type: 'string' },
        ...Object.fromEntries(ADDRESS_FLAGS.map((f) => [f, { type: 'string' as const }])),
      });
      const input: Record<string, unknown> = { ...customerRef(values) };
      if (str(values.name) !== undefined) input.name = str(values.name);
      if (str(values.email) !== undefined) input.email = str(values.email);
      if (ADDRESS_FLAGS.some((f) => str(values[f]) !== undefined))
        input.address = {
          line1: str(values.line1),
          line2: str(values.line2),
          city: str(values.city),
          state: str(values.state),
          pincode: str(values.pincode),
          name: str(values['address-name']),
          phone: str(values['address-phone']),
        };
      const r = await ctx.services.customerData.correct((await companyId(ctx, values))!, ctx.actor, input);
      show(
        ctx,
        r,
        [
          { key: 'customer_id', title: 'CUSTOMER' },
          { key: 'corrected', title: 'CORRECTED' },
          { key: 'orders_updated', title: 'ORDERS UPDATED' },
          { key: 'orders_not_updated', title: 'ORDERS KEPT (SHIPPED)' },
        ],
        [
          {
            ...r,
            corrected: r.corrected.join(', '),
            orders_updated: r.orders_updated.join(', ') || null,
            orders_not_updated: r.orders_not_updated.join(', ') || null,
          },
        ],
      );
    },
  },
  'customer erase': {
    usage: `customer erase ${REF_USAGE} [--cancel-open-orders]`,
    summary: "erase a customer's personal data everywhere (irreversible); prints what was erased and what is kept by law",
    async run(args, ctx) {
      const { values } = parse(args, { ...REF_FLAGS, 'cancel-open-orders': { type: 'boolean' } });
      const input = { ...customerRef(values), ...(values['cancel-open-orders'] === true ? { cancel_open_orders: true } : {}) };
      const r = await ctx.services.customerData.erase((await companyId(ctx, values))!, ctx.actor, input);
      if (ctx.json) return ctx.out(JSON.stringify(r, null, 2));
      ctx.out(
        r.already_erased
          ? `customer ${r.customer_id} was already erased at ${r.erased_at}; nothing changed`
          : `customer ${r.customer_id} erased at ${r.erased_at}` + (r.cancelled_orders.length ? `; cancelled ${r.cancelled_orders.join(', ')}` : ''),
      );
      const counts = Object.entries(r.erased).filter(([, n]) => n > 0);
      if (counts.length) ctx.out(`erased: ${counts.map(([t, n]) => `${t} ${n}`).join(', ')}`);
      for (const k of r.retained) ctx.out(`kept: ${k.what} (${k.why})`);
    },
  },
};
