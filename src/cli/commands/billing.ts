import { parse, str } from '../args.js';
import { companyId, withHint, type CommandGroup } from '../command.js';
import { showOrder } from '../output.js';

const companyFlag = { company: { type: 'string' } } as const;

/** `invoice issue`, `payment record`. */
export const billingCommands: CommandGroup = {
  'invoice issue': {
    usage: 'invoice issue <ref> --company <id|slug>',
    summary: 'issue the invoice now (it is issued on shipping anyway); prepaid orders are paid on issue',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['ref']);
      showOrder(ctx, await ctx.services.fulfilment.issueInvoice((await companyId(ctx, values))!, pos[0]));
    },
  },
  'payment record': {
    usage: 'payment record <ref> <amount> --company <id|slug> [--reference <text>]',
    summary: 'record a payment against the invoice (partial allowed, never more than is owed)',
    async run(args, ctx) {
      const { values, pos } = parse(args, { ...companyFlag, reference: { type: 'string' } }, ['ref', 'amount']);
      const company = (await companyId(ctx, values))!;
      const call = ctx.services.fulfilment.recordPayment(company, pos[0], pos[1], str(values.reference) ?? null);
      showOrder(ctx, await withHint(call, 'invoice', 'issue one with "invoice issue" first'));
    },
  },
};
