import { CONFIRM_WITHIN_MINUTES, MAX_RTO_THRESHOLD, ON_TIMEOUT, type CodSettingsInput, type CodSettingsView } from '../../contract/cod.js';
import { bool, oneOf, parse, str, UsageError, type Flags } from '../args.js';
import { companyId, type CommandContext, type CommandGroup } from '../command.js';
import { show, type Column } from '../output.js';

const COLUMNS: Column[] = [
  { key: 'confirm_before_booking', title: 'CONFIRM FIRST' },
  { key: 'confirm_within_minutes', title: 'WITHIN MINUTES' },
  { key: 'on_timeout', title: 'ON TIMEOUT' },
  { key: 'blocked', title: 'BLOCKED PINS' },
  { key: 'max_order_value', title: 'MAX COD VALUE' },
  { key: 'rto_threshold', title: 'RTO THRESHOLD' },
  { key: 'updated_at', title: 'UPDATED' },
];

const companyFlag = { company: { type: 'string' } } as const;
const SET_FLAGS = {
  ...companyFlag,
  'confirm-before-booking': { type: 'string' },
  'confirm-within-minutes': { type: 'string' },
  'on-timeout': { type: 'string' },
  'blocked-pincodes': { type: 'string' },
  'max-order-value': { type: 'string' },
  'rto-threshold': { type: 'string' },
} as const satisfies Flags;

const showSettings = (ctx: CommandContext, s: CodSettingsView) => show(ctx, s, COLUMNS, [{ ...s, blocked: s.blocked_pincodes.join(', ') || null }]);

/** A whole number flag (`none` clears it where `clearable`); the service checks its range. */
function whole(value: string | undefined, flag: string, range: string, clearable: boolean): number | null | undefined {
  if (value === undefined) return undefined;
  if (clearable && value === 'none') return null;
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`--${flag} takes a whole number (${range})${clearable ? ' or none' : ''}`);
  return Number(value);
}

/** `cod show|set`: a company's cash-on-delivery settings (confirmation before booking, and the rules that refuse COD). */
export const codCommands: CommandGroup = {
  'cod show': {
    usage: 'cod show --company <id|slug>',
    summary: "a company's cash-on-delivery settings: confirmation before booking, blocked PIN codes, maximum COD value, returns-to-origin threshold",
    async run(args, ctx) {
      const { values } = parse(args, companyFlag);
      showSettings(ctx, await ctx.services.codSettings.get((await companyId(ctx, values))!));
    },
  },
  'cod set': {
    usage:
      `cod set --company <id|slug> [--confirm-before-booking on|off] [--confirm-within-minutes <${CONFIRM_WITHIN_MINUTES.min}-${CONFIRM_WITHIN_MINUTES.max}>] ` +
      `[--on-timeout ${ON_TIMEOUT.join('|')}] [--blocked-pincodes <pin,pin-pin,…|none>] [--max-order-value <rupees|none>] [--rto-threshold <0-${MAX_RTO_THRESHOLD}|none>]`,
    summary: 'change the COD settings given (the PIN list replaces the stored one; none clears a list or limit)',
    async run(args, ctx) {
      const { values } = parse(args, SET_FLAGS);
      const input: CodSettingsInput = {};
      const confirm = bool(str(values['confirm-before-booking']), 'confirm-before-booking');
      if (confirm !== undefined) input.confirm_before_booking = confirm;
      const minutes = whole(
        str(values['confirm-within-minutes']),
        'confirm-within-minutes',
        `${CONFIRM_WITHIN_MINUTES.min}-${CONFIRM_WITHIN_MINUTES.max}`,
        false,
      );
      if (minutes !== undefined && minutes !== null) input.confirm_within_minutes = minutes;
      const onTimeout = oneOf(str(values['on-timeout']), ON_TIMEOUT, '--on-timeout');
      if (onTimeout !== undefined) input.on_timeout = onTimeout;
      const pins = str(values['blocked-pincodes']);
      if (pins !== undefined)
        input.blocked_pincodes =
          pins.trim() === 'none'
            ? []
            : pins
                .split(',')
                .map((p) => p.trim())
                .filter((p) => p !== '');
      const max = str(values['max-order-value']);
      if (max !== undefined) input.max_order_value = max === 'none' ? null : max;
      const threshold = whole(str(values['rto-threshold']), 'rto-threshold', `0-${MAX_RTO_THRESHOLD}`, true);
      if (threshold !== undefined) input.rto_threshold = threshold;
      if (Object.keys(input).length === 0)
        throw new UsageError(
          `name at least one of ${Object.keys(SET_FLAGS)
            .filter((f) => f !== 'company')
            .map((f) => `--${f}`)
            .join(', ')}`,
        );
      showSettings(ctx, await ctx.services.codSettings.set((await companyId(ctx, values))!, ctx.actor, input));
    },
  },
};
