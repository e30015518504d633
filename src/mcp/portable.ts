/**
 * A tool's input JSON Schema in the form every framework converts without loss (issue 18): the strict subset of
 * JSON Schema (OpenAI structured outputs) that LangChain's MCP adapters keep too.
 *
 * - every object lists every property in `required` and has `additionalProperties: false`;
 * - a property the zod schema leaves optional is nullable instead, `null` meaning "not given" (the tools read it
 *   so: nullsAsAbsent in src/contract/validation.ts), written as a type list (`["string", "null"]`; an enum also
 *   lists null) and never as `anyOf`, which LangChain's adapter drops (the property loses its type, and an object
 *   written as `anyOf [object, null]` stops accepting null);
 * - one JSON type per property: the string forms a query string needs (`"5"`, `"true"`) are not published, since
 *   MCP arguments are JSON. The tools still accept them (the zod schemas are REST's), the published schema is
 *   simply the portable subset.
 *
 * Constraints (minimum, maximum, minLength, maxLength, pattern, enum, minItems, maxItems) and descriptions are kept.
 * A schema that cannot be written so (two non-string types in one property) throws: tools/list is computed at
 * start-up, so the service refuses to start rather than publish a schema that converts with loss.
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function typesOf(schema: Json): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  return typeof schema.type === 'string' ? [schema.type] : [];
}

/** `anyOf` (nested ones too) -> its branches, flat. */
function branchesOf(schema: Json): Json[] {
  if (!Array.isArray(schema.anyOf)) return [schema];
  return (schema.anyOf as Json[]).flatMap(branchesOf);
}

/** One property or item: one JSON type, plus null when `nullable`. */
function portableValue(schema: Json, nullable: boolean, where: string): Json {
  const { anyOf: _anyOf, ...outer } = schema;
  let branches = branchesOf(schema);
  if (branches.some((b) => typesOf(b).length === 1 && typesOf(b)[0] === 'null')) nullable = true;
  branches = branches.filter((b) => !(typesOf(b).length === 1 && typesOf(b)[0] === 'null'));
  // A string branch beside a number, integer or boolean one is a query-string form of it: not needed in JSON.
  if (branches.length > 1 && branches.some((b) => !typesOf(b).includes('string'))) branches = branches.filter((b) => !typesOf(b).includes('string'));
  if (branches.length !== 1) throw new Error(`${where}: not one JSON type (${branches.length} alternatives)`);
  const merged: Json = { ...outer, ...branches[0] };
  let types = typesOf(merged).filter((t) => t !== 'null');
  if (types.length > 1 && types.some((t) => t !== 'string')) types = types.filter((t) => t !== 'string');
  if (types.length !== 1) throw new Error(`${where}: not one JSON type (${types.join(', ') || 'none'})`);
  const [type] = types;
  merged.type = nullable ? [type, 'null'] : type;
  if (nullable && Array.isArray(merged.enum) && !merged.enum.includes(null)) merged.enum = [...(merged.enum as unknown[]), null];
  if (type === 'object') portableObject(merged, where);
  if (type === 'array' && isObject(merged.items)) merged.items = portableValue(merged.items, false, `${where}[]`);
  return merged;
}

/** An object in place: every property required (the optional ones nullable), no other property. */
function portableObject(schema: Json, where: string): void {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  schema.properties = Object.fromEntries(
    Object.entries(properties).map(([key, value]) => [key, portableValue(value as Json, !required.has(key), where ? `${where}.${key}` : key)]),
  );
  schema.required = Object.keys(properties);
  schema.additionalProperties = false;
}

export function portableInputSchema(schema: Json): Json {
  const out = structuredClone(schema);
  delete out.$schema;
  out.type = 'object';
  portableObject(out, '');
  return out;
}
