import type { Db } from '../db/index.js';
import { findPrivacySettings } from '../customers/privacy-settings.queries.js';
import {
  purgeAuditEntries,
  purgeCanceledCheckouts,
  purgeEvents,
  purgeIdempotencyRecords,
  purgeJobs,
  purgePaymentEvents,
  purgeUcpOrderDeliveries,
  stripCompletedCheckouts,
} from './retention.queries.js';

/**
 * Retention by rule (README "Privacy settings"): what each company's privacy settings no longer keep, rule by rule.
 * A rule's batch deletes (or strips) at most `limit` of one company's rows past its cutoff in one short statement and
 * answers its counts; the worker (retention-worker.ts) runs the batches, pauses between them and logs the counts.
 */

export type Settings = Awaited<ReturnType<typeof findPrivacySettings>>;

/** Rows a batch removed, by what they are (the first count says whether the batch was full). */
export type BatchCounts = Record<string, number>;

/**
 * Tells (48 hours ahead, `customer.erasure_scheduled`) or anonymises up to `limit` customers of the company with no
 * order and no change for `years` years, answering how many (`anonymiseInactiveCustomers` in customer-data.service.ts).
 */
export type AnonymiseInactiveCustomers = (db: Db, companyId: string, years: number, now: Date, limit: number) => Promise<number>;

/** One batch's bounds: rows older than `cutoff` (now less the rule's days), at most `limit` of them. */
export interface BatchContext {
  cutoff: Date;
  /** Where the rule's previous batch of this pass ended (rules that page by age keep it here). */
  after: Date | null;
  limit: number;
  now: Date;
  settings: Settings;
}

export interface RetentionRule {
  name:
    | 'events'
    | 'jobs'
    | 'ucp_order_deliveries'
    | 'payment_events'
    | 'idempotency_records'
    | 'canceled_checkouts'
    | 'completed_checkouts'
    | 'audit_log'
    | 'inactive_customers';
  /** How long the company keeps these rows, in retention days; null: the rule is off for it. */
  days(s: Settings): number | null;
  batch(db: Db, companyId: string, at: BatchContext): Promise<BatchCounts>;
}

/** A Razorpay event is kept at least this many days whatever jobs_retention_days says: Razorpay retries a webhook for a day. */
export const PAYMENT_EVENT_MIN_DAYS = 7;

/** The rules, in the order a pass runs them. `anonymise` is the inactive-customer rule's work, when the build has it. */
export function retentionRules(anonymise: AnonymiseInactiveCustomers | undefined): RetentionRule[] {
  const rules: RetentionRule[] = [
    {
      name: 'events',
      days: (s) => s.events_retention_days,
      batch: async (db, c, at) => {
        const { last, ...counts } = await purgeEvents(db, c, at.cutoff, at.limit, at.after);
        at.after = last ?? at.after;
        return counts;
      },
    },
    { name: 'jobs', days: (s) => s.jobs_retention_days, batch: async (db, c, { cutoff, limit }) => ({ jobs: await purgeJobs(db, c, cutoff, limit) }) },
    {
      name: 'ucp_order_deliveries',
      days: (s) => s.jobs_retention_days,
      batch: async (db, c, { cutoff, limit }) => ({ deliveries: await purgeUcpOrderDeliveries(db, c, cutoff, limit) }),
    },
    {
      name: 'payment_events',
      days: (s) => Math.max(s.jobs_retention_days, PAYMENT_EVENT_MIN_DAYS),
      batch: async (db, c, { cutoff, limit }) => ({ payment_events: await purgePaymentEvents(db, c, cutoff, limit) }),
    },
    {
      // a kept answer holds the checkout as it was (the buyer's details too): it goes with the checkouts' retention
      name: 'idempotency_records',
      days: (s) => s.checkout_sessions_retention_days,
      batch: async (db, c, { cutoff, limit }) => ({ records: await purgeIdempotencyRecords(db, c, cutoff, limit) }),
    },
    {
      name: 'canceled_checkouts',
      days: (s) => s.checkout_sessions_retention_days,
      batch: async (db, c, { cutoff, limit }) => purgeCanceledCheckouts(db, c, cutoff, limit),
    },
    {
      name: 'completed_checkouts',
      days: (s) => s.checkout_sessions_retention_days,
      batch: async (db, c, { cutoff, limit }) => ({ stripped: await stripCompletedCheckouts(db, c, cutoff, limit) }),
    },
    {
      name: 'audit_log',
      days: (s) => s.audit_retention_days,
      batch: async (db, c, { cutoff, limit }) => ({ entries: await purgeAuditEntries(db, c, cutoff, limit) }),
    },
  ];
  // the inactive-customer rule: customer-data.service's anonymiseInactiveCustomers (off unless a company sets inactive_customer_years)
  if (anonymise)
    rules.push({
      name: 'inactive_customers',
      // the years are checked by the rule's own statement; any non-null value turns it on
      days: (s) => (s.inactive_customer_years === null ? null : s.inactive_customer_years * 365),
      batch: async (db, c, { limit, now, settings }) => ({
        customers: settings.inactive_customer_years === null ? 0 : await anonymise(db, c, settings.inactive_customer_years, now, limit),
      }),
    });
  return rules;
}

/** The company's settings as the rules read them (the defaults when it never set any). */
export const retentionSettings = (db: Db, companyId: string): Promise<Settings> => findPrivacySettings(db, companyId);
