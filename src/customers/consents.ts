import type { Db } from '../db/index.js';
import { newId } from '../lib/ids.js';
import {
  insertConsent,
  latestConsents,
  syncMessagingOptOut,
  type ConsentChannel,
  type ConsentPurpose,
  type ConsentSource,
  type ConsentState,
  type LatestConsent,
} from './consents.queries.js';

export type ConsentStates = Record<ConsentPurpose, Record<ConsentChannel, ConsentState | 'not_asked'>>;
export type MaySend = Record<ConsentPurpose, Record<ConsentChannel, boolean>>;

/** The state per purpose and channel from the newest rows: `not_asked` where there is none. */
export function consentStates(latest: readonly LatestConsent[]): ConsentStates {
  const state = (purpose: ConsentPurpose, channel: ConsentChannel) => latest.find((r) => r.purpose === purpose && r.channel === channel)?.state ?? 'not_asked';
  return {
    order_updates: { messaging: state('order_updates', 'messaging'), email: state('order_updates', 'email') },
    marketing: { messaging: state('marketing', 'messaging'), email: state('marketing', 'email') },
  };
}

/**
 * What the flow may send (the one definition; place_order_with_event.sql writes the same rule for order.created, and
 * test/customers/consents-orders.test.ts compares the two). Order updates needed to fulfil an order are a legitimate
 * use: sent unless withdrawn (or, on messaging, opted out). Marketing needs consent: sent only when given. An erased
 * customer: nothing.
 */
export function maySend(states: ConsentStates, customer: { erased: boolean; messagingOptedOut: boolean }): MaySend {
  const { erased, messagingOptedOut } = customer;
  // the opt-out column is derived from the same rows; read too, so the two can never disagree
  const updates = (c: ConsentChannel) => !erased && states.order_updates[c] !== 'withdrawn' && !(c === 'messaging' && messagingOptedOut);
  const marketing = (c: ConsentChannel) => !erased && states.marketing[c] === 'given';
  return {
    order_updates: { messaging: updates('messaging'), email: updates('email') },
    marketing: { messaging: marketing('messaging'), email: marketing('email') },
  };
}

/** One wanted state of one purpose and channel. */
export interface ConsentChange {
  purpose: ConsentPurpose;
  channel: ConsentChannel;
  state: ConsentState;
}

/**
 * Records each change whose state differs from the current one (the same state again records nothing), in the
 * caller's transaction with the customer's row locked, then keeps `messaging_opted_out` in step. Returns the rows
 * written (0: nothing changed).
 */
export async function recordConsentChanges(
  tx: Db,
  companyId: string,
  customerId: string,
  changes: readonly ConsentChange[],
  by: { source: ConsentSource; actor: string | null; at: Date },
): Promise<number> {
  const current = consentStates(await latestConsents(tx, companyId, customerId));
  const needed = changes.filter((c) => current[c.purpose][c.channel] !== c.state);
  for (const c of needed) await insertConsent(tx, companyId, { id: newId('cns'), customerId, ...c, ...by });
  if (needed.some((c) => c.purpose === 'order_updates' && c.channel === 'messaging')) await syncMessagingOptOut(tx, companyId, customerId, by.at);
  return needed.length;
}
