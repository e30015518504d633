/**
 * Phone number normalisation for customer contact numbers (messaging channel: mobiles only).
 *
 * Uses libphonenumber-js with its `max` metadata: the smaller metadata sets cannot tell
 * a mobile number from a landline.
 */
import { parsePhoneNumberWithError, ParseError, type PhoneNumber } from 'libphonenumber-js/max';

export type NormalizePhoneResult = { ok: true; e164: string } | { ok: false; message: string };

const EXAMPLE = 'e.g. "+91 98765 43210" or "98765 43210"';

/** Number types a messaging channel can reach. FIXED_LINE_OR_MOBILE: plans (e.g. US) that cannot tell. */
const REACHABLE = new Set(['MOBILE', 'FIXED_LINE_OR_MOBILE']);

const TYPE_NAMES: Record<string, string> = {
  FIXED_LINE: 'a landline',
  TOLL_FREE: 'a toll-free number',
  PREMIUM_RATE: 'a premium-rate number',
  SHARED_COST: 'a shared-cost number',
  VOIP: 'a VoIP number',
  PERSONAL_NUMBER: 'a personal (forwarding) number',
  PAGER: 'a pager number',
  UAN: 'a company (UAN) number',
  VOICEMAIL: 'a voicemail number',
};

function parseErrorMessage(code: string): string {
  switch (code) {
    case 'NOT_A_NUMBER':
      return `not a phone number: use digits only, with an optional leading "+" country code (${EXAMPLE})`;
    case 'INVALID_COUNTRY':
      return `the country code is missing or unknown: start a non-Indian number with "+" and its country code (${EXAMPLE})`;
    case 'TOO_SHORT':
      return `the phone number is too short: an Indian mobile number has 10 digits (${EXAMPLE})`;
    case 'TOO_LONG':
      return `the phone number is too long: an Indian mobile number has 10 digits (${EXAMPLE})`;
    default:
      return `not a valid phone number (${EXAMPLE})`;
  }
}

/**
 * Normalises a mobile number to E.164 ("+919876543210"). Numbers without a country code are taken
 * as Indian: "98765 43210", "09876543210", "919876543210", "0091 98765 43210" and "+91-98765-43210"
 * all give "+919876543210". Landlines, toll-free and other non-mobile numbers are refused.
 */
export function normalizePhone(raw: string): NormalizePhoneResult {
  const input = typeof raw === 'string' ? raw.trim() : '';
  if (!input) return { ok: false, message: `the phone number is empty: send a mobile number (${EXAMPLE})` };

  // "0091 ..." needs no special handling: 00 is India's international call prefix, so with
  // defaultCountry IN libphonenumber reads "0091 98765 43210" as +91 98765 43210 (and
  // "0044 ..." as +44 ...).
  // Punctuation is formatting: "(+91) 98765-43210" is "+91 98765 43210". Letters stay, so they are refused.
  const cleaned = /^[\d\s()+.\-/]+$/.test(input) ? `${input.includes('+') ? '+' : ''}${input.replace(/\D/g, '')}` : input;
  let phone: PhoneNumber;
  try {
    phone = parsePhoneNumberWithError(cleaned, { defaultCountry: 'IN', extract: false });
  } catch (err) {
    if (err instanceof ParseError) return { ok: false, message: parseErrorMessage(err.message) };
    throw err;
  }

  if (!phone.isValid()) {
    const national = phone.nationalNumber.length;
    const detail =
      phone.countryCallingCode === '91'
        ? `an Indian mobile number has 10 digits starting with 6, 7, 8 or 9${national === 10 ? '' : `, this one has ${national}`}`
        : `it is not a valid number for country code +${phone.countryCallingCode}`;
    return { ok: false, message: `not a valid phone number: ${detail} (${EXAMPLE})` };
  }
  if (phone.ext) {
    return { ok: false, message: 'the phone number has an extension: send a mobile number without an extension' };
  }

  const type = phone.getType();
  if (!type || !REACHABLE.has(type)) {
    const what = (type && TYPE_NAMES[type]) ?? 'a number of unknown type';
    return {
      ok: false,
      message: `${phone.number} is ${what}, not a mobile number the messaging channel can reach: send a mobile number (${EXAMPLE})`,
    };
  }
  return { ok: true, e164: phone.number };
}
