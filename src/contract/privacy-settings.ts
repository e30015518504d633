import { z } from 'zod';

/**
 * A company's privacy settings as its admin sets them (REST `/privacy/settings` with the `privacy` permission, the CLI
 * `privacy show|set`): the privacy notice link and how long the retention worker keeps each kind of row. The bounds are
 * the privacy_settings CHECKs (migration 0032).
 */

export const RETENTION_DAYS = { min: 1, max: 3650 } as const;
export const INACTIVE_CUSTOMER_YEARS = { min: 1, max: 20 } as const;
/** Audit entries are kept at least a year (the DPDP Rules keep logs that long), at most ten. */
export const AUDIT_RETENTION_DAYS = { min: 365, max: 3650 } as const;
export const NOTICE_URL_MAX = 2000;

const noticeRule = `must be an https:// link of at most ${NOTICE_URL_MAX} characters, or null to remove it`;
const whole = (range: { min: number; max: number }, what: string) => {
  const rule = `must be a whole number of ${what} from ${range.min} to ${range.max}`;
  return z.number({ error: rule }).int(rule).min(range.min, rule).max(range.max, rule);
};

const noticeUrl = z
  .string({ error: noticeRule })
  .trim()
  .max(NOTICE_URL_MAX, noticeRule)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'https:' && v.startsWith('https://') && u.hostname !== '';
    } catch {
      return false;
    }
  }, noticeRule);

const days = (what: string) => whole(RETENTION_DAYS, 'days').optional().describe(what);

export const privacySettingsBody = z
  .object({
    notice_url: noticeUrl
      .nullable()
      .optional()
      .describe("The company's privacy notice (https), shown where the flows and agents meet the customer; null removes it."),
    events_retention_days: days(
      `Delivered events and their webhook deliveries are deleted this many days after the event (${RETENTION_DAYS.min}–${RETENTION_DAYS.max}; default 30). An event with a delivery still pending is kept.`,
    ),
    jobs_retention_days: days(
      `Finished jobs (done or failed) and finished UCP order events are deleted this many days after they ended (${RETENTION_DAYS.min}–${RETENTION_DAYS.max}; default 30).`,
    ),
    checkout_sessions_retention_days: days(
      `Canceled or expired checkouts (and kept idempotent answers) are deleted, and completed ones lose the buyer's details, this many days after they ended (${RETENTION_DAYS.min}–${RETENTION_DAYS.max}; default 30).`,
    ),
    inactive_customer_years: whole(INACTIVE_CUSTOMER_YEARS, 'years')
      .nullable()
      .optional()
      .describe(
        `Customers with no order and no change for this many years are anonymised (${INACTIVE_CUSTOMER_YEARS.min}–${INACTIVE_CUSTOMER_YEARS.max}); null: never (the default).`,
      ),
    audit_retention_days: whole(AUDIT_RETENTION_DAYS, 'days')
      .optional()
      .describe(`Audit entries are deleted this many days after they were recorded (${AUDIT_RETENTION_DAYS.min}–${AUDIT_RETENTION_DAYS.max}; default 1095).`),
  })
  .describe('The settings to change; a field left out keeps its value.');
export type PrivacySettingsInput = z.input<typeof privacySettingsBody>;

export const privacySettingsSchema = z.object({
  notice_url: z.string().nullable(),
  events_retention_days: z.number().int(),
  jobs_retention_days: z.number().int(),
  checkout_sessions_retention_days: z.number().int(),
  inactive_customer_years: z.number().int().nullable(),
  audit_retention_days: z.number().int(),
  updated_at: z.string().nullable().describe('When the settings last changed; null while they are the defaults.'),
});
export type PrivacySettingsView = z.infer<typeof privacySettingsSchema>;
