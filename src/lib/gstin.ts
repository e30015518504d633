import { officialStateName } from './pincode.js';

/**
 * GST state codes (the first two digits of a GSTIN and the code printed beside the place of supply), by the
 * official state names of src/lib/pincodes.json. 25 (Daman and Diu) and 26 (Dadra and Nagar Haveli) were merged
 * into 26 in 2020; 28 is the old Andhra Pradesh code, 37 the current one.
 */
export const GST_STATE_CODES: Readonly<Record<string, string>> = Object.freeze({
  'Jammu and Kashmir': '01',
  'Himachal Pradesh': '02',
  Punjab: '03',
  Chandigarh: '04',
  Uttarakhand: '05',
  Haryana: '06',
  Delhi: '07',
  Rajasthan: '08',
  'Uttar Pradesh': '09',
  Bihar: '10',
  Sikkim: '11',
  'Arunachal Pradesh': '12',
  Nagaland: '13',
  Manipur: '14',
  Mizoram: '15',
  Tripura: '16',
  Meghalaya: '17',
  Assam: '18',
  'West Bengal': '19',
  Jharkhand: '20',
  Odisha: '21',
  Chhattisgarh: '22',
  'Madhya Pradesh': '23',
  Gujarat: '24',
  'Dadra and Nagar Haveli and Daman and Diu': '26',
  Maharashtra: '27',
  Karnataka: '29',
  Goa: '30',
  Lakshadweep: '31',
  Kerala: '32',
  'Tamil Nadu': '33',
  Puducherry: '34',
  'Andaman and Nicobar Islands': '35',
  Telangana: '36',
  'Andhra Pradesh': '37',
  Ladakh: '38',
});

/** State codes a GSTIN may start with: the table above, the retired 25 and 28, 97 (other territory), 99 (centre). */
const GSTIN_STATE_CODES = new Set([...Object.values(GST_STATE_CODES), '25', '28', '97', '99']);

/** A state's official name and GST code, from any accepted spelling of its name; null when not an Indian state or UT. */
export function gstState(name: string | null | undefined): { name: string; code: string } | null {
  const official = officialStateName(name);
  return official ? { name: official, code: GST_STATE_CODES[official] } : null;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * The 15th character of a GSTIN from its first 14 (the GSTN's published mod-36 scheme): each character's value
 * (0-9, A-Z = 10-35) is multiplied by 1 and 2 alternately from the left; each product adds its quotient and
 * remainder by 36; the check character is (36 - sum mod 36) mod 36.
 */
export function gstinCheckCharacter(first14: string): string {
  let sum = 0;
  for (let i = 0; i < 14; i++) {
    const product = ALPHABET.indexOf(first14[i]) * (i % 2 === 0 ? 1 : 2);
    sum += Math.floor(product / 36) + (product % 36);
  }
  return ALPHABET[(36 - (sum % 36)) % 36];
}

const GSTIN_SHAPE = /^(\d{2})([A-Z]{5}\d{4}[A-Z])([1-9A-Z])([A-Z0-9])([A-Z0-9])$/;

/** Why a GSTIN is not valid, or null when it is: 15 characters, a state code, a PAN, an entity number, a check character. */
export function gstinProblem(gstin: string): string | null {
  if (gstin.length !== 15) return 'must be 15 characters';
  const m = GSTIN_SHAPE.exec(gstin);
  if (!m) return 'must be a state code (2 digits), a PAN (5 letters, 4 digits, 1 letter), an entity number, a letter and a check character';
  if (!GSTIN_STATE_CODES.has(m[1])) return `starts with ${m[1]}, which is no GST state code`;
  if (gstinCheckCharacter(gstin.slice(0, 14)) !== gstin[14]) return 'has a wrong check character (mistyped?)';
  return null;
}
