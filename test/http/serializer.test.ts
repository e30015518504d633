import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileSerializer } from '../../src/contract/serializer.js';
import { errorResponses } from '../../src/contract/error-responses.js';
import { browseResponseSchema, categoriesResponseSchema, productDetailResponseSchema } from '../../src/contract/catalogue.js';
import { orderLookupSchema, orderSchema } from '../../src/contract/orders.js';
import { customerSchema } from '../../src/contract/customers.js';
import { itemResponseSchema, itemsResponseSchema } from '../../src/contract/items.js';
import { createdWebhookSchema, webhookEndpointSchema } from '../../src/contract/webhooks.js';
import { TOOLS } from '../../src/mcp/tools.js';

/** Today's allowlisted output, as fastify-type-provider-zod's serializer wrote it: a zod encode, then JSON.stringify. */
const zodWritten = (schema: z.ZodType, value: unknown) => JSON.stringify(z.encode(schema, value));

/** Text that is awkward to write as JSON: quotes, backslashes, controls, line separators, lone surrogates, emoji. */
const awkward = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom('', '"', '\\', '\u0000', '\n\r\t', '\u2028\u2029', '\ud800', '\udfff', '</script>', '😀', 'x'.repeat(60) + '"'),
);

const extraKey = awkward.filter((k) => k !== '__proto__');

/** Values anything may hold where a schema says nothing (an extra property's value). */
const anything = fc.jsonValue({ maxDepth: 2 });

type Def = { type: string; [k: string]: unknown };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Values valid for `schema`, with extra properties at every object level (never one the schema names). */
function valuesOf(schema: z.ZodType): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return awkward;
    case 'number':
      return fc.integer({ min: -1e9, max: 1e9 });
    case 'boolean':
      return fc.boolean();
    case 'literal':
      return fc.constantFrom(...(def.values as unknown[]));
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries as Record<string, string>));
    case 'unknown':
    case 'any':
      return anything;
    case 'nullable':
      return fc.option(valuesOf(def.innerType as z.ZodType), { nil: null, freq: 3 });
    case 'array':
      return fc.array(valuesOf(def.element as z.ZodType), { maxLength: 3 });
    case 'record':
      return fc.dictionary(extraKey, valuesOf(def.valueType as z.ZodType), { maxKeys: 3 });
    case 'union':
      return fc.oneof(...(def.options as z.ZodType[]).map(valuesOf));
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const optional = Object.keys(shape).filter((k) => defOf(shape[k]).type === 'optional');
      const fields = Object.fromEntries(
        Object.entries(shape).map(([k, s]) => [k, defOf(s).type === 'optional' ? valuesOf(defOf(s).innerType as z.ZodType) : valuesOf(s)]),
      );
      const known = fc.record(fields, { requiredKeys: Object.keys(shape).filter((k) => !optional.includes(k)) });
      const extras = fc.dictionary(
        extraKey.filter((k) => !(k in shape)),
        anything,
        { maxKeys: 2 },
      );
      // extra properties before or after the schema's own, so key order is exercised too
      return fc.tuple(known, extras, fc.boolean()).map(([own, extra, first]) => (first ? { ...extra, ...own } : { ...own, ...extra }));
    }
    default:
      throw new Error(`valuesOf: no generator for zod type ${def.type}`);
  }
}

const errorSchemas = Object.entries(errorResponses([400, 401, 403, 404, 409, 413, 415, 422, 429, 500]));

/** Every response schema a REST route or an MCP tool writes. */
const SCHEMAS: [string, z.ZodType][] = [
  ['browse', browseResponseSchema],
  ['product detail', productDetailResponseSchema],
  ['categories', categoriesResponseSchema],
  ['order placed', z.object({ data: orderSchema })],
  ['order duplicate', z.object({ data: orderSchema, duplicate: z.literal(true) })],
  ['order lookup', z.object({ data: orderLookupSchema })],
  ['customer', z.object({ data: customerSchema })],
  ['customer opt-out', z.object({ data: customerSchema, changed: z.boolean() })],
  ['items', itemsResponseSchema],
  ['item', itemResponseSchema],
  ['webhook created', z.object({ data: createdWebhookSchema })],
  ['webhooks', z.object({ data: z.array(webhookEndpointSchema) })],
  ...TOOLS.map((t) => [`tool ${t.name}`, t.output] as [string, z.ZodType]),
  ...errorSchemas.map(([status, s]) => [`error ${status}`, s] as [string, z.ZodType]),
];

describe('compiled response serialisers', () => {
  it.each(SCHEMAS)('%s: the compiled output equals the zod-allowlisted output, extra properties dropped at every level', (_name, schema) => {
    const write = compileSerializer(schema);
    fc.assert(
      fc.property(valuesOf(schema), (value) => {
        expect(write(value)).toBe(zodWritten(schema, value));
      }),
      { numRuns: 150 },
    );
  });

  it('a nullable object carrying an extra property is written without it (fast-json-stringify threw on additionalProperties: false)', () => {
    const schema = z.object({
      category: z.object({ id: z.string(), parent: z.string().nullable() }).nullable(),
      tags: z.array(z.object({ a: z.string() }).nullable()),
    });
    const write = compileSerializer(schema);
    const value = { category: { id: 'c', parent: null, secret: 'x' }, tags: [{ a: '1', b: 2 }, null], leaked: true };
    expect(write(value)).toBe('{"category":{"id":"c","parent":null},"tags":[{"a":"1"},null]}');
    expect(write(value)).toBe(zodWritten(schema, value));
    expect(write({ category: null, tags: [] })).toBe('{"category":null,"tags":[]}');
  });

  it('a property the schema does not name never reaches the text', () => {
    const write = compileSerializer(productDetailResponseSchema);
    const text = write({
      data: {
        product_id: 'p',
        sku: 's',
        name: 'n',
        description: null,
        category: { id: 'c', name: 'C', slug: 'c', parent: null, cost_price: '1.00' },
        brand: { id: 'b', name: 'B', supplier: 'secret' },
        unit: 'PCS',
        hsn_code: null,
        tax_rate: '18',
        currency: 'INR',
        price_range: { min: '1.00', max: '1.00', margin: 'x' },
        options: {},
        available: '1.000',
        available_total: '1.000',
        in_stock: true,
        image_url: null,
        variants: [],
        matched_variant_id: null,
        images: [{ url: 'u', alt: null, variant_id: null, path: 'secret/path.jpg' }],
        search_text: 'secret',
      },
    });
    for (const word of ['cost_price', 'supplier', 'margin', 'secret', 'search_text']) expect(text).not.toContain(word);
  });

  it('one compiled serialiser per schema', () => {
    expect(compileSerializer(browseResponseSchema)).toBe(compileSerializer(browseResponseSchema));
  });
});
