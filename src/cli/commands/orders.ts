import { readFileSync } from 'node:fs';
import { SHIPMENT_STATUSES, type ShipmentStatus } from '../../couriers/index.js';
import { AppError, validationError } from '../../contract/errors.js';
import { issuesToDetails } from '../../contract/validation.js';
import { Decimal } from '../../lib/money.js';
import { draftOrderBody } from '../../contract/orders.js';
import { COD_ANSWERS, type CodAnswer } from '../../contract/cod-answer.js';
import { PAYMENT_LINK_MAX_MINUTES, PAYMENT_LINK_MIN_MINUTES, paymentLinkBody } from '../../contract/payment-links.js';
import { ORDER_TARGETS, type OrderTarget } from '../../fulfilment/lifecycle.service.js';
import { parse, str, UsageError } from '../args.js';
import { companyId, withHint, type CommandGroup } from '../command.js';
import { printTable, showOrder, showOrderDetail } from '../output.js';

const companyFlag = { company: { type: 'string' } } as const;

/** `order …`, `orders attention`, `hold resolve`: an order's life by hand (drafts, moves, address, shipping, tracking). */
export const orderCommands: CommandGroup = {
  'order show': {
    usage: 'order show <ref> --company <id|slug>',
    summary: 'an order in full (drafts included): customer, address, items, shipment, invoice and its history',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['ref']);
      showOrderDetail(ctx, await ctx.services.fulfilment.detail((await companyId(ctx, values))!, pos[0]));
    },
  },
  'order move': {
    usage: `order move <ref> <${ORDER_TARGETS.join('|')}> --company <id|slug>`,
    summary: 'move an order (stock: cancel releases, ship converts, return puts back; shipping issues the invoice)',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['ref', 'status']);
      if (!(ORDER_TARGETS as readonly string[]).includes(pos[1])) throw new UsageError(`status must be one of ${ORDER_TARGETS.join(', ')}`);
      showOrder(ctx, await ctx.services.fulfilment.move((await companyId(ctx, values))!, pos[0], pos[1] as OrderTarget));
    },
  },
  'order confirm': {
    usage: 'order confirm <ref> --company <id|slug>',
    summary: 'confirm a draft: reserves stock under the same rules as POST /orders',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['ref']);
      showOrder(ctx, await ctx.services.fulfilment.confirm((await companyId(ctx, values))!, pos[0]));
    },
  },
  'order cod-confirm': {
    usage: `order cod-confirm <ref> <${COD_ANSWERS.join('|')}> --company <id|slug>`,
    summary: "settle a COD order's pending confirmation for the buyer: confirm (a courier booking follows) or decline (the order is cancelled, stock released)",
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['ref', 'answer']);
      if (!(COD_ANSWERS as readonly string[]).includes(pos[1])) throw new UsageError(`answer must be one of ${COD_ANSWERS.join(', ')}`);
      showOrder(ctx, await ctx.services.codConfirmations.staffAnswer((await companyId(ctx, values))!, pos[0], pos[1] as CodAnswer));
    },
  },
  'order draft create': {
    usage:
      'order draft create --company <id|slug> (--file <order.json> | --name <n> --phone <p> --item <sku:qty>... [--payment cod|prepaid] [--line1 … --city … --pincode … --state …])',
    summary: 'create a draft order (no stock reserved, invisible to the API until confirmed)',
    async run(args, ctx) {
      const { values } = parse(
        args,
        {
          ...companyFlag,
          file: { type: 'string' },
          name: { type: 'string' },
          phone: { type: 'string' },
          item: { type: 'string', multiple: true },
          payment: { type: 'string' },
          reference: { type: 'string' },
          line1: { type: 'string' },
          line2: { type: 'string' },
          city: { type: 'string' },
          pincode: { type: 'string' },
          state: { type: 'string' },
        },
        [],
      );
      let input: unknown;
      if (typeof values.file === 'string') {
        try {
          input = JSON.parse(readFileSync(ctx.file(values.file), 'utf8'));
        } catch (err) {
          throw new AppError('validation_failed', `cannot read ${values.file} as JSON: ${(err as Error).message}`);
        }
      } else {
        const items = ((values.item as string[] | undefined) ?? []).map((i) => {
          const at = i.lastIndexOf(':');
          return at > 0 ? { product_id: i.slice(0, at), quantity: i.slice(at + 1) } : { product_id: i, quantity: '1' };
        });
        input = {
          customer: { name: values.name, phone: values.phone },
          items,
          payment: values.payment,
          external_reference: values.reference,
          delivery_address: values.line1
            ? { line1: values.line1, line2: values.line2, city: values.city, pincode: values.pincode, state: values.state }
            : undefined,
        };
      }
      const parsed = draftOrderBody.safeParse(input);
      if (!parsed.success) throw validationError(issuesToDetails(parsed.error.issues, '(order)'));
      showOrder(ctx, await ctx.services.fulfilment.createDraft((await companyId(ctx, values))!, parsed.data));
    },
  },
  'order address': {
    usage: 'order address <ref> --company <id|slug> --line1 <…> --city <…> --pincode <NNNNNN> [--line2 …] [--state …] [--name …] [--phone …]',
    summary: 'set the delivery address of an order not yet with a courier (queues a booking when automatic booking is on)',
    async run(args, ctx) {
      const f = { type: 'string' } as const;
      const { values, pos } = parse(args, { ...companyFlag, line1: f, line2: f, city: f, pincode: f, state: f, name: f, phone: f }, ['ref']);
      const v = await ctx.services.fulfilment.setAddress((await companyId(ctx, values))!, pos[0], {
        line1: values.line1 ?? '',
        line2: values.line2,
        city: values.city ?? '',
        pincode: values.pincode ?? '',
        state: values.state,
        name: values.name,
        phone: values.phone,
      });
      if (ctx.json) ctx.out(JSON.stringify(v, null, 2));
      else {
        showOrder(ctx, v);
        if (v.booking_enqueued) ctx.out('courier booking queued');
      }
    },
  },
  'order book': {
    usage: 'order book <ref> --company <id|slug>',
    summary: 'queue a courier booking now (also when automatic booking is off)',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['ref']);
      const call = ctx.services.fulfilment.requestBooking((await companyId(ctx, values))!, pos[0]);
      showOrder(ctx, await withHint(call, 'delivery_address', 'add one with "order address"'));
    },
  },
  'order ship': {
    usage: 'order ship <ref> --company <id|slug> [--awb <awb>] [--courier <name>] [--tracking-url <url>]',
    summary: 'ship an order by hand (manual courier): records AWB and courier, converts stock, issues the invoice',
    async run(args, ctx) {
      const { values, pos } = parse(args, { ...companyFlag, awb: { type: 'string' }, courier: { type: 'string' }, 'tracking-url': { type: 'string' } }, [
        'ref',
      ]);
      const url = str(values['tracking-url']);
      if (url && !/^https?:\/\/\S+$/.test(url)) throw new UsageError('--tracking-url must be an http(s) URL');
      showOrder(
        ctx,
        await ctx.services.fulfilment.ship((await companyId(ctx, values))!, pos[0], { awb: str(values.awb), courier: str(values.courier), trackingUrl: url }),
      );
    },
  },
  'order track': {
    usage: `order track <ref|awb> <${SHIPMENT_STATUSES.join('|')}> --company <id|slug> [--cod-collected] [--cod-amount <amount>]`,
    summary: 'record a tracking update (delivered marks the order delivered; --cod-collected records the cash)',
    async run(args, ctx) {
      const { values, pos } = parse(
        args,
        { ...companyFlag, 'cod-collected': { type: 'boolean' }, 'cod-amount': { type: 'string' }, note: { type: 'string' } },
        ['ref', 'status'],
      );
      if (!(SHIPMENT_STATUSES as readonly string[]).includes(pos[1])) throw new UsageError(`status must be one of ${SHIPMENT_STATUSES.join(', ')}`);
      const amount = str(values['cod-amount']);
      if (amount !== undefined && !/^\d{1,12}(\.\d{1,2})?$/.test(amount)) throw new UsageError('--cod-amount must be an amount such as 499.00');
      const company = (await companyId(ctx, values))!;
      const byAwb = !(await ctx.services.fulfilment.view(company, pos[0]).catch(() => null));
      const cod = amount !== undefined ? new Decimal(amount) : values['cod-collected'] === true ? true : undefined;
      const v = await ctx.services.fulfilment.track(company, byAwb ? { awb: pos[0] } : { reference: pos[0] }, pos[1] as ShipmentStatus, {
        source: 'cli',
        codCollected: cod,
        note: str(values.note),
      });
      showOrder(ctx, v);
      if (!ctx.json && v.update.result === 'repeated') ctx.out(v.update.message);
    },
  },
  'order payment-link': {
    usage: 'order payment-link <ref> --company <id|slug> [--expire-in-minutes <15-10080>]',
    summary: 'a Razorpay payment link for what a COD order not yet shipped owes (the live one again if it has one); paid, the order becomes prepaid',
    async run(args, ctx) {
      const { values, pos } = parse(args, { ...companyFlag, 'expire-in-minutes': { type: 'string' } }, ['ref']);
      const minutes = str(values['expire-in-minutes']);
      const parsed = paymentLinkBody.safeParse({ expire_in_minutes: minutes === undefined ? undefined : Number(minutes) });
      if (!parsed.success || (minutes !== undefined && !/^\d+$/.test(minutes)))
        throw new UsageError(`--expire-in-minutes must be a whole number from ${PAYMENT_LINK_MIN_MINUTES} to ${PAYMENT_LINK_MAX_MINUTES}`);
      const { link, existing } = await ctx.services.paymentLinks.create({ companyId: (await companyId(ctx, values))! }, pos[0], parsed.data);
      if (ctx.json) return ctx.out(JSON.stringify({ ...link, existing }, null, 2));
      ctx.out(
        `${existing ? 'live link already made' : 'payment link made'} for ${link.order_number}: ${link.amount} INR, ${link.status}, expires ${link.expires_at ?? 'never'}`,
      );
      ctx.out(link.short_url);
    },
  },
  'orders attention': {
    usage: 'orders attention [--company <id|slug>]',
    summary:
      'orders needing staff, oldest first: courier updates held (e.g. delivered for a cancelled order), failed bookings, payments to refund (money for a checkout no longer payable, or a payment link paid for an order that cannot take it), and COD confirmations past their time limit (order cod-confirm)',
    async run(args, ctx) {
      const { values } = parse(args, companyFlag, []);
      const rows = await ctx.services.fulfilment.listAttention(await companyId(ctx, values, false));
      if (ctx.json) return ctx.out(JSON.stringify(rows, null, 2));
      ctx.out(
        printTable(
          rows,
          ['kind', 'id', 'order_number', 'order_status', 'since', 'reason'].map((k) => ({ key: k, title: k.toUpperCase() })),
        ),
      );
    },
  },
  'hold resolve': {
    usage: 'hold resolve <hold id> --company <id|slug> --note <what was done>',
    summary: 'close a held courier update once staff have dealt with it (refund, return, re-open); the note is kept',
    async run(args, ctx) {
      const { values, pos } = parse(args, { ...companyFlag, note: { type: 'string' } }, ['id']);
      const done = await ctx.services.fulfilment.resolveHold((await companyId(ctx, values))!, pos[0], str(values.note) ?? '');
      ctx.out(ctx.json ? JSON.stringify(done, null, 2) : `hold ${pos[0]} resolved`);
    },
  },
};
