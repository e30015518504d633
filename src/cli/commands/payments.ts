import { parse, str, UsageError } from '../args.js';
import { companyId, type CommandContext, type CommandGroup } from '../command.js';
import { printTable } from '../output.js';
import type { PaymentSettingsView } from '../../payments/payments.service.js';

const f = { type: 'string' } as const;

/** The settings for people: one row, and the webhook address to give Razorpay's dashboard. */
function printSettings(ctx: CommandContext, view: PaymentSettingsView): void {
  const origin = ctx.serviceOrigin ?? ctx.services.media.configuredOrigin();
  const webhookUrl = `${origin}${view.webhook_path}`;
  if (ctx.json) return ctx.out(JSON.stringify({ ...view, webhook_url: webhookUrl }, null, 2));
  const { webhook_path: _path, ...shown } = view;
  ctx.out(
    printTable(
      [shown],
      Object.keys(shown).map((k) => ({ key: k, title: k.toUpperCase() })),
    ),
  );
  ctx.out(`\nWebhook URL for Razorpay's dashboard (events payment.captured, payment.failed, order.paid, payment_link.*):\n\n    ${webhookUrl}\n`);
}

/**
 * `payments configure|show`: a company's Razorpay account. The secrets come from flags or, to keep them out of the
 * shell's history, from RAZORPAY_KEY_SECRET and RAZORPAY_WEBHOOK_SECRET in the caller's environment (as `courier
 * configure` reads COURIER_PASSWORD); they are never printed.
 */
export const paymentCommands: CommandGroup = {
  'payments configure': {
    usage:
      'payments configure razorpay --company <id|slug> --key-id <rzp_test_…|rzp_live_…> [--key-secret <s> | env RAZORPAY_KEY_SECRET] [--webhook-secret <s> | env RAZORPAY_WEBHOOK_SECRET] [--base-url <url>]',
    summary: "set a company's Razorpay keys and webhook secret (stored sealed, never shown); prints the webhook URL for Razorpay's dashboard",
    async run(args, ctx) {
      const { values, pos } = parse(args, { company: f, 'key-id': f, 'key-secret': f, 'webhook-secret': f, 'base-url': f }, ['provider']);
      if (pos[0] !== 'razorpay') throw new UsageError(`the provider must be razorpay, not "${pos[0].slice(0, 40)}"`);
      const view = await ctx.services.payments.configure((await companyId(ctx, values))!, ctx.actor, {
        provider: 'razorpay',
        keyId: str(values['key-id']),
        keySecret: str(values['key-secret']) ?? ctx.env.RAZORPAY_KEY_SECRET,
        webhookSecret: str(values['webhook-secret']) ?? ctx.env.RAZORPAY_WEBHOOK_SECRET,
        baseUrl: str(values['base-url']),
      });
      printSettings(ctx, view);
    },
  },
  'payments show': {
    usage: 'payments show --company <id|slug>',
    summary: "a company's payment provider: key id (masked), mode, whether each secret is set, the webhook URL",
    async run(args, ctx) {
      const { values } = parse(args, { company: f }, []);
      const view = await ctx.services.payments.show((await companyId(ctx, values))!);
      if (view) return printSettings(ctx, view);
      if (ctx.json) return ctx.out(JSON.stringify(null));
      ctx.out('no payment provider configured (payments configure razorpay --company … sets one)');
    },
  },
};
