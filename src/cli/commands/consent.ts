import { CONSENT_CHANNELS, CONSENT_PURPOSES, CONSENT_STATES } from '../../contract/consents.js';
import type { Customer } from '../../contract/customers.js';
import { oneOf, parse, str, UsageError } from '../args.js';
import { companyId, type CommandContext, type CommandGroup } from '../command.js';
import { printTable, show } from '../output.js';

const companyFlag = { company: { type: 'string' } } as const;

/** The current state as one row per purpose and channel. */
const stateRows = (consents: Customer['consents'], maySend?: Customer['may_send']) =>
  CONSENT_PURPOSES.flatMap((purpose) =>
    CONSENT_CHANNELS.map((channel) => ({ purpose, channel, state: consents[purpose][channel], ...(maySend ? { may_send: maySend[purpose][channel] } : {}) })),
  );

const required = (value: string | undefined, flag: string): string => {
  if (value === undefined) throw new UsageError(`--${flag} is required`);
  return value;
};

const phoneOf = (values: { phone?: string | boolean }) => required(str(values.phone), 'phone');

/** `consent show|set`: a customer's consent to order updates and marketing, per channel, and its history. */
export const consentCommands: CommandGroup = {
  'consent show': {
    usage: 'consent show --company <id|slug> --phone <number>',
    summary: "a customer's consent (order updates, marketing; messaging, e-mail) now, and every change with when and through what",
    async run(args, ctx: CommandContext) {
      const { values } = parse(args, { ...companyFlag, phone: { type: 'string' } });
      const phone = phoneOf(values);
      const found = await ctx.services.customers.consents((await companyId(ctx, values))!, phone);
      if (ctx.json) return ctx.out(JSON.stringify(found, null, 2));
      ctx.out(
        printTable(stateRows(found.consents), [
          { key: 'purpose', title: 'PURPOSE' },
          { key: 'channel', title: 'CHANNEL' },
          { key: 'state', title: 'STATE' },
        ]),
      );
      ctx.out('');
      ctx.out(
        printTable(found.history, [
          { key: 'recorded_at', title: 'WHEN' },
          { key: 'purpose', title: 'PURPOSE' },
          { key: 'channel', title: 'CHANNEL' },
          { key: 'state', title: 'STATE' },
          { key: 'source', title: 'THROUGH' },
          { key: 'actor', title: 'BY' },
        ]),
      );
    },
  },
  'consent set': {
    usage: `consent set --company <id|slug> --phone <number> --purpose ${CONSENT_PURPOSES.join('|')} --channel ${CONSENT_CHANNELS.join('|')} --state ${CONSENT_STATES.join('|')}`,
    summary: "record the customer's consent given or withdrawn for one purpose and channel (the same state again changes nothing)",
    async run(args, ctx) {
      const { values } = parse(args, {
        ...companyFlag,
        phone: { type: 'string' },
        purpose: { type: 'string' },
        channel: { type: 'string' },
        state: { type: 'string' },
      });
      const phone = phoneOf(values);
      const purpose = oneOf(required(str(values.purpose), 'purpose'), CONSENT_PURPOSES, '--purpose')!;
      const channel = oneOf(required(str(values.channel), 'channel'), CONSENT_CHANNELS, '--channel')!;
      const state = oneOf(required(str(values.state), 'state'), CONSENT_STATES, '--state')!;
      const { customer, changed } = await ctx.services.customers.setConsent(
        (await companyId(ctx, values))!,
        { phone, purpose, channel, state },
        { source: 'cli', actor: ctx.actor.name },
      );
      const result = { customer_id: customer.customer_id, changed, consents: customer.consents, may_send: customer.may_send };
      show(
        ctx,
        result,
        [
          { key: 'purpose', title: 'PURPOSE' },
          { key: 'channel', title: 'CHANNEL' },
          { key: 'state', title: 'STATE' },
          { key: 'may_send', title: 'MAY SEND' },
        ],
        stateRows(customer.consents, customer.may_send),
      );
      if (!ctx.json) ctx.err(changed ? 'recorded' : 'unchanged: already so');
    },
  },
};
