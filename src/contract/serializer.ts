import fastJson from 'fast-json-stringify';
import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema fast-json-stringify is compiled from, derived from a response's zod schema. Two rewrites keep
 * the output equal to a zod parse followed by JSON.stringify (test/http/serializer.test.ts):
 * - `additionalProperties: false` is dropped. fast-json-stringify writes only the declared properties anyway (the
 *   allowlist), but inside an `anyOf` it picks a branch by validating the value, and a closed object carrying one
 *   extra property matched no branch: the write threw (a 500) where zod strips the property.
 * - `anyOf: [X, {type: 'null'}]` (zod's nullable object) becomes X with `nullable: true`, written directly instead of
 *   validated branch by branch for every value.
 */
function writable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(writable);
  if (!node || typeof node !== 'object') return node;
  const schema = node as JsonSchema;
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  if (anyOf?.length === 2) {
    const nullAt = anyOf.findIndex((s) => s.type === 'null' && Object.keys(s).length === 1);
    if (nullAt !== -1) {
      const rest = Object.fromEntries(Object.entries(schema).filter(([k]) => k !== 'anyOf'));
      return writable({ ...rest, ...anyOf[1 - nullAt], nullable: true });
    }
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || (key === 'additionalProperties' && value === false)) continue;
    // `properties` maps names to schemas: its keys are never keywords to drop.
    out[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as JsonSchema).map(([k, v]) => [k, writable(v)])) : writable(value);
  }
  return out;
}

const compiled = new WeakMap<z.ZodType, (value: unknown) => string>();

/**
 * A function writing `schema`'s output as JSON text: only the schema's properties, at every level (response schemas
 * are allowlists), compiled once per schema by fast-json-stringify. Used for every REST response (app.ts) and MCP
 * tool result text.
 */
export function compileSerializer(schema: z.ZodType): (value: unknown) => string {
  let write = compiled.get(schema);
  if (!write) {
    const json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' });
    write = fastJson(writable(json) as Parameters<typeof fastJson>[0]);
    compiled.set(schema, write);
  }
  return write;
}
