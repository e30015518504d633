import {
  AUDIT_RETENTION_DAYS,
  INACTIVE_CUSTOMER_YEARS,
  RETENTION_DAYS,
  type PrivacySettingsInput,
  type PrivacySettingsView,
} from '../../contract/privacy-settings.js';
import { parse, str, UsageError, type Flags } from '../args.js';
import { companyId, type CommandContext, type CommandGroup } from '../command.js';
import { show, type Column } from '../output.js';

const COLUMNS: Column[] = [
  { key: 'notice_url', title: 'NOTICE' },
  { key: 'events_retention_days', title: 'EVENTS DAYS' },
  { key: 'jobs_retention_days', title: 'JOBS DAYS' },
  { key: 'checkout_sessions_retention_days', title: 'CHECKOUTS DAYS' },
  { key: 'inactive_customer_years', title: 'INACTIVE YEARS' },
  { key: 'audit_retention_days', title: 'AUDIT DAYS' },
  { key: 'updated_at', title: 'UPDATED' },
];

const companyFlag = { company: { type: 'string' } } as const;
const SET_FLAGS = {
  ...companyFlag,
  'notice-url': { type: 'string' },
  'events-days': { type: 'string' },
  'jobs-days': { type: 'string' },
  'checkouts-days': { type: 'string' },
  'inactive-years': { type: 'string' },
  'audit-days': { type: 'string' },
} as const satisfies Flags;

const showSettings = (ctx: CommandContext, s: PrivacySettingsView) => show(ctx, s, COLUMNS, [s]);

/** A whole number flag (`none` clears it where `clearable`); the service checks its range. */
function whole(value: string | undefined, flag: string, range: { min: number; max: number }, clearable = false): number | null | undefined {
  if (value === undefined) return undefined;
  if (clearable && value === 'none') return null;
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`--${flag} takes a whole number (${range.min}-${range.max})${clearable ? ' or none' : ''}`);
  return Number(value);
}

const days = (range: { min: number; max: number }) => `<${range.min}-${range.max}>`;

/** `privacy show|set`: a company's privacy settings (the notice link and retention). Each change is in the audit trail. */
export const privacyCommands: CommandGroup = {
  'privacy show': {
    usage: 'privacy show --company <id|slug>',
    summary: "a company's privacy settings: privacy notice link, retention of events, jobs, checkouts and audit entries, inactive customers",
    async run(args, ctx) {
      const { values } = parse(args, companyFlag);
      showSettings(ctx, await ctx.services.privacySettings.get((await companyId(ctx, values))!));
    },
  },
  'privacy set': {
    usage:
      `privacy set --company <id|slug> [--notice-url <https://…|none>] [--events-days ${days(RETENTION_DAYS)}] [--jobs-days ${days(RETENTION_DAYS)}] ` +
      `[--checkouts-days ${days(RETENTION_DAYS)}] [--inactive-years ${days(INACTIVE_CUSTOMER_YEARS)}|none] [--audit-days ${days(AUDIT_RETENTION_DAYS)}]`,
    summary: 'change the privacy settings given (none removes the notice link or turns off the inactive-customer rule); recorded in the audit trail',
    async run(args, ctx) {
      const { values } = parse(args, SET_FLAGS);
      const input: PrivacySettingsInput = {};
      const notice = str(values['notice-url']);
      if (notice !== undefined) input.notice_url = notice === 'none' ? null : notice;
      const set = <K extends keyof PrivacySettingsInput>(key: K, value: number | null | undefined) => {
        if (value !== undefined) input[key] = value as PrivacySettingsInput[K];
      };
      set('events_retention_days', whole(str(values['events-days']), 'events-days', RETENTION_DAYS));
      set('jobs_retention_days', whole(str(values['jobs-days']), 'jobs-days', RETENTION_DAYS));
      set('checkout_sessions_retention_days', whole(str(values['checkouts-days']), 'checkouts-days', RETENTION_DAYS));
      set('inactive_customer_years', whole(str(values['inactive-years']), 'inactive-years', INACTIVE_CUSTOMER_YEARS, true));
      set('audit_retention_days', whole(str(values['audit-days']), 'audit-days', AUDIT_RETENTION_DAYS));
      if (Object.keys(input).length === 0)
        throw new UsageError(
          `name at least one of ${Object.keys(SET_FLAGS)
            .filter((f) => f !== 'company')
            .map((f) => `--${f}`)
            .join(', ')}`,
        );
      const company = (await companyId(ctx, values))!;
      showSettings(ctx, await ctx.services.privacySettings.set(company, ctx.actor, input));
    },
  },
};
