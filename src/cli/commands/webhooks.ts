import { ALL_EVENTS, EVENT_CHOICES, EVENT_TYPES, subscribedEvents } from '../../contract/webhooks.js';
import { oneOf, parse, str, UsageError } from '../args.js';
import { companyId, type CommandGroup } from '../command.js';
import { printTable, show, type Column } from '../output.js';

const ENDPOINT_COLUMNS: Column[] = [
  { key: 'id', title: 'ID' },
  { key: 'url', title: 'URL' },
  { key: 'events', title: 'EVENTS' },
  { key: 'status', title: 'STATUS' },
  { key: 'failing_since', title: 'FAILING SINCE' },
  { key: 'disabled_reason', title: 'DISABLED BECAUSE' },
];
const DELIVERY_COLUMNS: Column[] = [
  { key: 'event_id', title: 'EVENT' },
  { key: 'type', title: 'TYPE' },
  { key: 'endpoint_id', title: 'ENDPOINT' },
  { key: 'status', title: 'STATUS' },
  { key: 'attempts', title: 'ATTEMPTS' },
  { key: 'last_status_code', title: 'LAST CODE' },
  { key: 'last_error', title: 'LAST ERROR' },
  { key: 'next_attempt_at', title: 'NEXT ATTEMPT' },
];

const companyFlag = { company: { type: 'string' } } as const;

/** `webhook add|list|remove|rotate|test|deliveries|resend` and `customer opt-out`. */
export const webhookCommands: CommandGroup = {
  'webhook add': {
    usage: `webhook add --company <id|slug> --url <https://…> --events <type,type|all> [--description <text>]`,
    summary: 'add a webhook endpoint (its signing secret is printed once; at most 10 per company)',
    async run(args, ctx) {
      const { values } = parse(args, { ...companyFlag, url: { type: 'string' }, events: { type: 'string' }, description: { type: 'string' } });
      const company = await companyId(ctx, values);
      if (!str(values.url)) throw new UsageError('--url is required');
      if (!str(values.events)) throw new UsageError(`--events is required: a comma-separated list of ${EVENT_TYPES.join(', ')}, or ${ALL_EVENTS}`);
      const listed = str(values.events)!
        .split(',')
        .map((e) => oneOf(e.trim(), EVENT_CHOICES, '--events')!);
      const events = subscribedEvents(listed);
      const created = await ctx.services.webhooks.create(company!, ctx.actor, { url: str(values.url)!, events, description: str(values.description) ?? null });
      if (ctx.json) return ctx.out(JSON.stringify(created, null, 2));
      const { secret, ...endpoint } = created;
      ctx.out(printTable([endpoint], ENDPOINT_COLUMNS));
      ctx.out(`\nSigning secret (shown only this once; give it to the receiver to check X-Webhook-Signature):\n\n    ${secret}\n`);
    },
  },
  'webhook list': {
    usage: 'webhook list --company <id|slug>',
    summary: "list a company's webhook endpoints; disabled ones say why",
    async run(args, ctx) {
      const { values } = parse(args, companyFlag);
      const list = await ctx.services.webhooks.list((await companyId(ctx, values))!);
      show(ctx, list, ENDPOINT_COLUMNS, list);
    },
  },
  'webhook remove': {
    usage: 'webhook remove --company <id|slug> <endpoint id>',
    summary: 'remove an endpoint; its pending deliveries are given up',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['endpoint id']);
      const removed = await ctx.services.webhooks.remove((await companyId(ctx, values))!, ctx.actor, pos[0]);
      show(ctx, removed, [{ key: 'id', title: 'REMOVED' }], [removed]);
    },
  },
  'webhook enable': {
    usage: 'webhook enable --company <id|slug> <endpoint id>',
    summary: 'turn a disabled endpoint on again (same secret); then `webhook resend --all-failed` if wanted',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['endpoint id']);
      const endpoint = await ctx.services.webhooks.enable((await companyId(ctx, values))!, ctx.actor, pos[0]);
      show(ctx, endpoint, ENDPOINT_COLUMNS, [endpoint]);
    },
  },
  'webhook rotate': {
    usage: 'webhook rotate --company <id|slug> <endpoint id>',
    summary: 'a new signing secret (printed once); the previous one keeps signing during the grace period',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['endpoint id']);
      const rotated = await ctx.services.webhooks.rotate((await companyId(ctx, values))!, ctx.actor, pos[0]);
      if (ctx.json) return ctx.out(JSON.stringify(rotated, null, 2));
      ctx.out(`New signing secret for ${rotated.id} (shown only this once):\n\n    ${rotated.secret}\n`);
      ctx.out(`The previous secret also signs until ${rotated.previous_secret_valid_until}.`);
    },
  },
  'webhook test': {
    usage: 'webhook test --company <id|slug> <endpoint id>',
    summary: 'send a signed webhook.test event now and print what the endpoint answered',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['endpoint id']);
      const result = await ctx.services.webhooks.test((await companyId(ctx, values))!, ctx.actor, pos[0]);
      show(
        ctx,
        result,
        [
          { key: 'id', title: 'ENDPOINT' },
          { key: 'status', title: 'HTTP STATUS' },
          { key: 'error', title: 'ERROR' },
        ],
        [result],
      );
    },
  },
  'webhook deliveries': {
    usage: 'webhook deliveries --company <id|slug> [--status pending|delivered|failed] [--endpoint <id>] [--limit <n>]',
    summary: 'latest deliveries with status, attempts and last response code',
    async run(args, ctx) {
      const { values } = parse(args, { ...companyFlag, status: { type: 'string' }, endpoint: { type: 'string' }, limit: { type: 'string' } });
      const limit = str(values.limit) === undefined ? 50 : Number(str(values.limit));
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be an integer from 1 to 1000');
      const list = await ctx.services.webhooks.deliveries((await companyId(ctx, values))!, {
        status: oneOf(str(values.status), ['pending', 'delivered', 'failed'] as const, '--status'),
        endpointId: str(values.endpoint),
        limit,
      });
      show(ctx, list, DELIVERY_COLUMNS, list);
    },
  },
  'webhook resend': {
    usage: 'webhook resend --company <id|slug> (<event id> | --all-failed)',
    summary: 're-send one failed event (to every endpoint it failed at) or every failed delivery of the company',
    async run(args, ctx) {
      const { values, pos } = parse(args, { ...companyFlag, 'all-failed': { type: 'boolean' } }, ['event id?']);
      if (!pos[0] === !values['all-failed']) throw new UsageError('name one event id, or pass --all-failed');
      const result = await ctx.services.webhooks.resend((await companyId(ctx, values))!, ctx.actor, pos[0] ?? null);
      show(ctx, result, [{ key: 'resent', title: 'RESENT' }], [result]);
    },
  },
  'customer opt-out': {
    usage: 'customer opt-out --company <id|slug> --phone <number> [--resume]',
    summary: 'record that a customer asked to stop messages (or, with --resume, to receive them again)',
    async run(args, ctx) {
      const { values } = parse(args, { ...companyFlag, phone: { type: 'string' }, resume: { type: 'boolean' } });
      if (!str(values.phone)) throw new UsageError('--phone is required');
      const { customer, changed } = await ctx.services.customers.setMessagingOptOut(
        (await companyId(ctx, values))!,
        str(values.phone)!,
        !values.resume,
        ctx.actor.name,
      );
      const row = { customer_id: customer.customer_id, messaging_opted_out: customer.messaging_opted_out, changed };
      show(
        ctx,
        row,
        Object.keys(row).map((k) => ({ key: k, title: k.toUpperCase() })),
        [row],
      );
    },
  },
};
