import { writeFileSync } from 'node:fs';
import { parse, str, UsageError } from '../args.js';
import { companyId, withHint, type CommandGroup } from '../command.js';
import { showOrder } from '../output.js';

const companyFlag = { company: { type: 'string' } } as const;

/** `invoice issue`, `invoice pdf`, `payment record`. */
export const billingCommands: CommandGroup = {
  'invoice issue': {
    usage: 'invoice issue <ref> --company <id|slug>',
    summary: 'issue the invoice now (it is issued on shipping anyway); prepaid orders are paid on issue',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['ref']);
      showOrder(ctx, await ctx.services.fulfilment.issueInvoice((await companyId(ctx, values))!, pos[0]));
    },
  },
  'invoice pdf': {
    usage: 'invoice pdf <ref> --company <id|slug> --out <file.pdf> [--credit-note]',
    summary: "write the order's GST invoice (or, with --credit-note, its credit note) as a PDF file",
    async run(args, ctx) {
      const { values, pos } = parse(args, { ...companyFlag, out: { type: 'string' }, 'credit-note': { type: 'boolean' } }, ['ref']);
      if (!str(values.out)) throw new UsageError('--out <file.pdf> is required');
      const out = ctx.file(str(values.out)!);
      const company = (await companyId(ctx, values))!;
      const call = ctx.services.fulfilment.invoicePdf(company, pos[0], values['credit-note'] ? 'credit_note' : 'invoice');
      const file = await withHint(call, 'invoice', 'issue one with "invoice issue" first');
      writeFileSync(out, file.pdf);
      ctx.out(
        ctx.json ? JSON.stringify({ file: out, name: file.filename, bytes: file.pdf.length }) : `wrote ${file.filename} to ${out} (${file.pdf.length} bytes)`,
      );
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
