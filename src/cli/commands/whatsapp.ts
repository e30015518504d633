import type { WhatsappSettingsView } from '../../orders/whatsapp.service.js';
import { parse, str, UsageError, type Flags } from '../args.js';
import { companyId, type CommandContext, type CommandGroup } from '../command.js';
import { show, type Column } from '../output.js';

const COLUMNS: Column[] = [
  { key: 'catalog_id', title: 'CATALOGUE' },
  { key: 'payment_configuration', title: 'PAYMENT CONFIG' },
  { key: 'upi_vpa', title: 'UPI ID' },
  { key: 'upi_payee_name', title: 'PAYEE' },
  { key: 'template_name', title: 'TEMPLATE' },
  { key: 'status_template_name', title: 'STATUS TEMPLATE' },
  { key: 'template_language', title: 'LANGUAGE' },
];

const companyFlag = { company: { type: 'string' } } as const;
/** Each flag and the setting it changes. */
const SETTINGS = [
  ['catalog-id', 'catalog_id'],
  ['payment-configuration', 'payment_configuration'],
  ['upi-vpa', 'upi_vpa'],
  ['upi-payee-name', 'upi_payee_name'],
  ['template-name', 'template_name'],
  ['template-language', 'template_language'],
  ['status-template-name', 'status_template_name'],
] as const;
const SET_FLAGS = { ...companyFlag, ...Object.fromEntries(SETTINGS.map(([flag]) => [flag, { type: 'string' }])) } as Flags;

const showSettings = (ctx: CommandContext, s: WhatsappSettingsView) => show(ctx, s, COLUMNS, [s]);

/** `whatsapp show|set`: what a company's WhatsApp order messages need beyond the order. */
export const whatsappCommands: CommandGroup = {
  'whatsapp show': {
    usage: 'whatsapp show --company <id|slug>',
    summary: "a company's WhatsApp order message settings: Meta catalogue, ways to pay, templates",
    async run(args, ctx) {
      const { values } = parse(args, companyFlag);
      showSettings(ctx, await ctx.services.whatsapp.settings((await companyId(ctx, values))!));
    },
  },
  'whatsapp set': {
    usage:
      'whatsapp set --company <id|slug> [--catalog-id <Meta catalogue id>] [--payment-configuration <name in WhatsApp Manager>] [--upi-vpa <shop@bank>] [--upi-payee-name <name>] [--template-name <order details template>] [--status-template-name <order status template>] [--template-language <en|hi|en_US>]; "none" clears one',
    summary:
      'change the settings given: order_details needs the catalogue and a way to pay (payment link, gateway configuration or UPI id); templates reach customers outside the 24-hour window',
    async run(args, ctx) {
      const { values } = parse(args, SET_FLAGS);
      const change: Record<string, string | null> = {};
      for (const [flag, field] of SETTINGS) {
        const value = str(values[flag]);
        if (value !== undefined) change[field] = value === 'none' ? null : value;
      }
      if (Object.keys(change).length === 0) throw new UsageError(`name at least one of ${SETTINGS.map(([f]) => `--${f}`).join(', ')}`);
      showSettings(ctx, await ctx.services.whatsapp.set((await companyId(ctx, values))!, ctx.actor, change));
    },
  },
};
