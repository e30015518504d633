import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
import { validationError, type FieldIssue } from '../contract/errors.js';
import { gstinProblem, gstState } from '../lib/gstin.js';
import { statesForPincode } from '../lib/pincode.js';
import { findTaxProfile, writeTaxProfile, type TaxProfile } from './companies.queries.js';

/** A change to a profile: a field left out keeps its value; `gstin: null` makes the company an unregistered supplier (null on a required field is refused). */
export type TaxProfilePatch = { [K in keyof TaxProfile]?: TaxProfile[K] | null };

const text = (value: string | null | undefined) => {
  const t = value?.replace(/\s+/g, ' ').trim();
  return t ? t : null;
};

/** The profile as it would be after the patch, checked field by field; every problem is reported at once. */
export function checkTaxProfile(current: TaxProfile | undefined, patch: TaxProfilePatch): TaxProfile {
  const pick = <K extends keyof TaxProfile>(k: K): TaxProfile[K] | null => (k in patch ? (patch[k] ?? null) : (current?.[k] ?? null));
  const issues: FieldIssue[] = [];
  const required = (path: keyof TaxProfile, max: number): string => {
    const v = text(pick(path));
    if (!v) issues.push({ path, message: 'is required' });
    else if (v.length > max) issues.push({ path, message: `must be at most ${max} characters` });
    return v ?? '';
  };
  const optional = (path: keyof TaxProfile, max: number): string | null => {
    const v = text(pick(path));
    if (v && v.length > max) issues.push({ path, message: `must be at most ${max} characters` });
    return v;
  };
  const profile: TaxProfile = {
    legal_name: required('legal_name', 200),
    trade_name: optional('trade_name', 200),
    gstin: text(pick('gstin'))?.toUpperCase() ?? null,
    address_line1: required('address_line1', 200),
    address_line2: optional('address_line2', 200),
    city: required('city', 80),
    state: required('state', 80),
    pincode: required('pincode', 6),
    invoice_prefix: (text(pick('invoice_prefix')) ?? 'INV').toUpperCase(),
  };
  const state = profile.state ? gstState(profile.state) : null;
  if (profile.state && !state) issues.push({ path: 'state', message: 'must be an Indian state or union territory' });
  if (state) profile.state = state.name;
  if (profile.pincode && !/^[1-9]\d{5}$/.test(profile.pincode)) issues.push({ path: 'pincode', message: 'must be six digits' });
  else if (state && profile.pincode) {
    const states = statesForPincode(profile.pincode);
    if (states.length && !states.includes(state.name)) issues.push({ path: 'pincode', message: `is in ${states.join(' or ')}, not ${state.name}` });
  }
  if (profile.gstin) {
    const problem = gstinProblem(profile.gstin);
    if (problem) issues.push({ path: 'gstin', message: problem });
    else if (state && profile.gstin.slice(0, 2) !== state.code)
      issues.push({
        path: 'gstin',
        message: `starts with state code ${profile.gstin.slice(0, 2)}, but the registered address is in ${state.name} (${state.code})`,
      });
  }
  if (!/^[A-Z][A-Z0-9]{0,2}$/.test(profile.invoice_prefix))
    issues.push({ path: 'invoice_prefix', message: 'must be 1-3 letters or digits starting with a letter (invoice numbers have at most 16 characters)' });
  else if (profile.invoice_prefix === 'CN') issues.push({ path: 'invoice_prefix', message: 'CN is the credit notes’ prefix' });
  if (issues.length) throw validationError(issues);
  return profile;
}

/** The seller's tax profile (admin CLI): what its invoices say about the seller. */
export function createTaxProfileService({ db }: { db: Db }) {
  return {
    async get(companyId: string): Promise<TaxProfile | undefined> {
      return findTaxProfile(db, companyId);
    },

    /** Creates or changes the profile; a new profile needs the legal name and the registered address. Applies to invoices issued from now on. */
    async set(companyId: string, actor: Actor, patch: TaxProfilePatch, now: Date = new Date()): Promise<TaxProfile> {
      const p = checkTaxProfile(await findTaxProfile(db, companyId), patch);
      return db.tx(async (tx) => {
        const written = await writeTaxProfile(tx, companyId, p, now);
        await recordAudit(tx, companyId, actor, {
          action: 'tax_profile.set',
          subjectKind: 'company',
          subjectId: companyId,
          detail: { fields: Object.keys(patch) },
        });
        return written;
      });
    },
  };
}

export type TaxProfileService = ReturnType<typeof createTaxProfileService>;
