/**
 * Indian PIN code -> state / union territory, from the compact table src/lib/pincodes.json
 * (GeoNames CC BY 4.0 and India Post data; regenerate with `npx tsx scripts/generate-pincodes.ts`,
 * see docs/pincodes.md).
 */
import data from './pincodes.json' with { type: 'json' };

interface PincodeTable {
  source: string;
  licence: string;
  /** Official names of the 28 states and 8 union territories, by index. */
  states: string[];
  /** 3-digit prefix -> state index, when every known PIN of that prefix has that one state. */
  prefixState: Record<string, number>;
  /** 3-digit prefix -> state index -> "1-30,32,..." (last three digits; "a-b" is an inclusive run). */
  pins: Record<string, Record<string, string>>;
}

const table = data as unknown as PincodeTable;

/** Where the PIN code data comes from (for credits). */
export const PINCODE_DATA_SOURCE: string = table.source;

/** The 28 states and 8 union territories, official names, alphabetical. */
export const INDIAN_STATES: readonly string[] = Object.freeze([...table.states]);

/** PIN -> state indexes, decoded once at load (about 19,400 PINs). */
const statesByPin = new Map<number, number[]>();
for (const [prefix, byState] of Object.entries(table.pins)) {
  const base = Number(prefix) * 1000;
  for (const [stateIndex, ranges] of Object.entries(byState)) {
    const state = Number(stateIndex);
    for (const part of ranges.split(',')) {
      const [from, to = from] = part.split('-').map(Number) as [number, number?];
      for (let n = from; n <= to; n++) {
        const pin = base + n;
        const list = statesByPin.get(pin);
        if (list) list.push(state);
        else statesByPin.set(pin, [state]);
      }
    }
  }
}

/**
 * Comparison key for a state name: case, "&" vs "and", spaces and punctuation do not matter
 * ("Jammu & Kashmir", "jammu-and-kashmir", "Tamilnadu" and "TAMIL NADU" all match).
 */
function nameKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '' && word !== 'and')
    .join('');
}

/** Old names and common variants -> official name. */
const ALIASES: Record<string, string> = {
  Orissa: 'Odisha',
  Pondicherry: 'Puducherry',
  Pondichery: 'Puducherry',
  Uttaranchal: 'Uttarakhand',
  Chattisgarh: 'Chhattisgarh',
  Chhatisgarh: 'Chhattisgarh',
  'NCT of Delhi': 'Delhi',
  'National Capital Territory of Delhi': 'Delhi',
  'New Delhi': 'Delhi',
  'Andaman and Nicobar': 'Andaman and Nicobar Islands',
  'Dadra and Nagar Haveli': 'Dadra and Nagar Haveli and Daman and Diu',
  'Daman and Diu': 'Dadra and Nagar Haveli and Daman and Diu',
  'J&K': 'Jammu and Kashmir',
};

const officialByKey = new Map<string, string>();
for (const state of table.states) officialByKey.set(nameKey(state), state);
for (const [alias, state] of Object.entries(ALIASES)) officialByKey.set(nameKey(alias), state);

/** The official name of a state or union territory given in any accepted spelling, else null. */
export function officialStateName(name: string | null | undefined): string | null {
  if (typeof name !== 'string') return null;
  const key = nameKey(name);
  return key ? (officialByKey.get(key) ?? null) : null;
}

/** True when `name` names one of the 28 states or 8 union territories (old names such as Orissa count). */
export function isIndianState(name: string | null | undefined): boolean {
  return officialStateName(name) !== null;
}

/** "560 001" -> 560001; null unless 6 digits not starting with 0. */
function parsePin(pin: string): number | null {
  if (typeof pin !== 'string') return null;
  const digits = pin.replace(/\s+/g, '');
  return /^[1-9]\d{5}$/.test(digits) ? Number(digits) : null;
}

/**
 * States of a PIN code: those of a known PIN (two for a few PINs on state borders); for an unknown
 * PIN, the state of its 3-digit prefix when all known PINs of that prefix are in that one state;
 * else [].
 */
export function statesForPincode(pin: string): string[] {
  const n = parsePin(pin);
  if (n === null) return [];
  const known = statesByPin.get(n);
  if (known) return known.map((i) => table.states[i]);
  const prefixState = table.prefixState[String(Math.floor(n / 1000))];
  return prefixState === undefined ? [] : [table.states[prefixState]];
}

export type DeliveryStateResult = { ok: true; state: string } | { ok: false; message: string };

/**
 * The state of a delivery address, from its PIN code and the state the customer gave (optional).
 * Returns the official spelling, or a message saying what is wrong and how to fix it.
 */
export function resolveDeliveryState(pin: string, givenState?: string | null): DeliveryStateResult {
  const n = parsePin(pin);
  if (n === null) {
    return {
      ok: false,
      message: `PIN code ${JSON.stringify(pin)} is not valid: an Indian PIN code has 6 digits and does not start with 0`,
    };
  }
  const pinText = String(n);
  const given = typeof givenState === 'string' && givenState.trim() !== '' ? givenState.trim().replace(/\s+/g, ' ') : null;
  const givenOfficial = given === null ? null : officialStateName(given);
  const candidates = statesForPincode(pinText);

  if (candidates.length === 1) {
    const state = candidates[0];
    if (given !== null && givenOfficial !== state) {
      return {
        ok: false,
        message: `state ${given} does not match PIN ${pinText} (${state}): ` + `correct delivery_address.state or the PIN code, or leave the state out`,
      };
    }
    return { ok: true, state };
  }

  if (candidates.length > 1) {
    if (givenOfficial !== null && candidates.includes(givenOfficial)) return { ok: true, state: givenOfficial };
    const choices = candidates.map((s) => `"${s}"`).join(' or ');
    const listed = candidates.join(' and ');
    return {
      ok: false,
      message:
        given === null
          ? `PIN ${pinText} is shared by ${listed}: send delivery_address.state as ${choices}`
          : `state ${given} does not match PIN ${pinText}, which is shared by ${listed}: send delivery_address.state as ${choices}`,
    };
  }

  // Unknown PIN and no single state for its prefix: the customer's state decides.
  if (givenOfficial !== null) return { ok: true, state: givenOfficial };
  if (given !== null) {
    return {
      ok: false,
      message:
        `unknown PIN code ${pinText}, and ${JSON.stringify(given)} is not an Indian state or union territory: ` +
        `send delivery_address.state as its full name, e.g. "Tamil Nadu", or check the PIN code`,
    };
  }
  return {
    ok: false,
    message:
      `unknown PIN code; send delivery_address.state (PIN ${pinText} is not in our PIN code table, ` +
      `so the state or union territory of the address is needed), or check the PIN code`,
  };
}

/**
 * A PIN code or an inclusive range of them as stored ("110001", "110001-110099"), from what staff typed (spaces
 * around the dash, a range of one PIN); null when it is neither or the range runs high to low. Shipping rates' PIN
 * zones and the COD rules' blocked PIN codes both take this form.
 */
export function pinRange(value: string): string | null {
  const m = /^([1-9]\d{5})(?:\s*-\s*([1-9]\d{5}))?$/.exec(value.trim());
  if (!m) return null;
  if (m[2] !== undefined && Number(m[2]) < Number(m[1])) return null;
  return m[2] === undefined || m[2] === m[1] ? m[1] : `${m[1]}-${m[2]}`;
}

/** "110001-110099" or "110001" (as `pinRange` stores it) holds the PIN. */
export function pinInRange(pin: number, range: string): boolean {
  const [from, to = from] = range.split('-').map((part) => Number(part.trim()));
  return pin >= from && pin <= to;
}
