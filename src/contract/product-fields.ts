import { z } from 'zod';
import { decimal, optionalText, text } from './file-values.js';

/**
 * A product's own fields (besides its id, SKU and name, which key it, and its category, brand, photos and variants):
 * one entry each, and the one place a new field is added (with its column in db/schema/catalogue.ts and a migration).
 * Each entry is the field's value in the API's Product (`output`: REST, MCP and OpenAPI) and in the catalogue file
 * (`file`: what the import accepts; the export writes the stored value). From this list the read model selects and
 * holds the field (read-model.queries.ts, read-model.ts), the import writes it and the export reads it
 * (import/import.queries.ts); its column is the one of the same name in `products` (a numeric one is read as text).
 */
interface ProductField {
  output: z.ZodType;
  file: z.ZodType;
  /** a short text repeated across a catalogue (a unit, a code, a rate): the read model keeps one copy of each value */
  repeated?: true;
}

const fields = <T extends Record<string, ProductField>>(t: T) => t;

/** Shown in the API's Product beside the name, before category and brand. */
const besideName = fields({
  description: { output: z.string().nullable(), file: optionalText(5000) },
});

/** Shown in the API's Product after the brand: a new field goes at the end of this list. */
const details = fields({
  unit: { output: z.string(), file: text(20).default('PCS'), repeated: true },
  hsn_code: {
    output: z.string().nullable(),
    file: z
      .union([z.string(), z.number()], { error: 'must be a string of 4-8 digits' })
      .transform(String)
      .pipe(z.string().regex(/^\d{4,8}$/, 'must be 4-8 digits'))
      .nullish()
      .transform((v) => v ?? null),
    repeated: true,
  },
  tax_rate: {
    output: z.string(),
    file: decimal('100', 2, 'must be a GST percentage from 0 to 100 with up to 2 places, such as "18" or "5.00"'),
    repeated: true,
  },
});

/** Every product field, in the catalogue file's order. */
export const productFields = { ...besideName, ...details };
export type ProductFieldName = keyof typeof productFields;
export const PRODUCT_FIELD_NAMES = Object.keys(productFields) as ProductFieldName[];
/** A product's field values as the API shows them. */
export type ProductFieldValues = { [K in ProductFieldName]: z.output<(typeof productFields)[K]['output']> };

const outputsOf = <T extends Record<string, ProductField>>(t: T) =>
  Object.fromEntries(Object.entries(t).map(([k, f]) => [k, f.output])) as { [K in keyof T]: T[K]['output'] };
const filesOf = <T extends Record<string, ProductField>>(t: T) =>
  Object.fromEntries(Object.entries(t).map(([k, f]) => [k, f.file])) as { [K in keyof T]: T[K]['file'] };

/** The fields' output schemas, in the two places the API's Product shows them (contract/catalogue.ts). */
export const productOutputShape = { besideName: outputsOf(besideName), details: outputsOf(details) };
/** The fields' file schemas (contract/catalogue-file.ts). */
export const productFileShape = filesOf(productFields);

/** Names of the fields shown beside the name, and after the brand, for building a Product in that order. */
export const BESIDE_NAME = Object.keys(besideName) as (keyof typeof besideName)[];
export const DETAILS = Object.keys(details) as (keyof typeof details)[];

/** The fields the read model keeps one copy of per value. */
export const REPEATED_FIELDS: ReadonlySet<ProductFieldName> = new Set(PRODUCT_FIELD_NAMES.filter((k) => (productFields[k] as ProductField).repeated));

/** The named fields of `from` (a product of the model, a row), as a new object in `names`' order. */
export function pickFields<K extends ProductFieldName>(from: Record<K, unknown>, names: readonly K[]): { [P in K]: ProductFieldValues[P] } {
  const out = {} as Record<K, unknown>;
  for (const k of names) out[k] = from[k];
  return out as { [P in K]: ProductFieldValues[P] };
}
