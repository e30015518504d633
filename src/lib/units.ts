/**
 * Selling units (a product's `unit`): which are measured, so sold and stocked in decimals (up to 3 places), and which
 * are counted, so whole numbers only. The catalogue takes any unit name up to 20 characters; GST's unit quantity codes
 * (UQC) name both kinds. The measured ones are a short list of weights, lengths, areas and volumes (the UQC codes and
 * the ways sellers write them); every other unit is counted: PCS, NOS, BOX, PAC, SET, PRS, DOZ, BTL, a seller's own
 * "500G PACK" alike (docs/decisions.md).
 */
const MEASURED = new Set([
  // weight
  ...['KG', 'KGS', 'KILO', 'KILOS', 'KILOGRAM', 'KILOGRAMS', 'G', 'GM', 'GMS', 'GRM', 'GRAM', 'GRAMS', 'MG', 'MGS'],
  ...['TON', 'TONS', 'TONNE', 'TONNES', 'MT', 'MTS', 'QTL', 'QUINTAL', 'QUINTALS'],
  // volume
  ...['L', 'LT', 'LTR', 'LTRS', 'LITRE', 'LITRES', 'LITER', 'LITERS', 'ML', 'MLT', 'MLS', 'MILLILITRE', 'MILLILITRES', 'MILLILITER'],
  ...['MILLILITERS', 'KL', 'KLR', 'KILOLITRE', 'CBM', 'CCM', 'UGS', 'GAL', 'GALLON', 'GALLONS'],
  // length
  ...['M', 'MTR', 'MTRS', 'METRE', 'METRES', 'METER', 'METERS', 'CM', 'CMS', 'MM', 'KM', 'KME', 'YD', 'YDS', 'YARD', 'YARDS', 'GYD'],
  ...['FT', 'FEET', 'FOOT', 'IN', 'INCH', 'INCHES'],
  // area
  ...['SQM', 'SQF', 'SQFT', 'SQY', 'SQYD', 'SQMTR'],
]);

/** The unit as the list above writes it: upper case, without spaces, dots and hyphens ("Kg." and "sq. ft" match). */
const normalised = (unit: string) => unit.toUpperCase().replace(/[\s.-]/g, '');

/** A counted unit: quantities and stock figures of its products are whole numbers. */
export function isWholeUnit(unit: string): boolean {
  return !MEASURED.has(normalised(unit));
}

/** The refusal of a fraction of a counted unit, naming the unit (order quantities and stock figures alike). */
export const wholeNumberMessage = (unit: string, sku: string) => `must be a whole number of ${unit}: ${sku} is sold in whole units`;
