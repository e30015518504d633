/**
 * Tool JSON Schemas as tools/list publishes them: the contract's own form, in the spelling the MCP Inspector's
 * portability lint (`--strict`) accepts without a warning.
 *
 * Input schemas:
 * - `required` lists what the contract requires and nothing else: an agent may leave an optional parameter out;
 * - an optional parameter also takes `null`, meaning "not given" (the tools read it so: nullsAsAbsent in
 *   src/contract/validation.ts), written `anyOf: [<the value's schema>, {type: "null"}]` with the constraints inside
 *   the first branch and only annotations (description, default) beside `anyOf`. Not a `type` list, which the lint
 *   flags (single-type dialects such as Gemini's cannot take it), and not `nullable`, which is not JSON Schema.
 *   An object's branch is wrapped in an `anyOf` of its own (`anyOf: [{anyOf: [<object>]}, {type: "null"}]`, the same
 *   set of values): LangChain's MCP adapters (1.1.4) keep only the branches that show `type: "object"` or
 *   `properties`, merged into a plain object that refuses null; a wrapped branch is not kept, so the property reaches
 *   them untyped and takes null as well as the object; what their model then reads is the description, so such an
 *   object's description names its fields (delivery_address's does; docs/decisions.md);
 * - every object has `additionalProperties: false`, so a framework that wants OpenAI's strict mode derives it from
 *   the published schema (the OpenAI Agents SDK's `convertSchemasToStrict` makes every property required and
 *   keeps these nullable ones as they are);
 * - one JSON type per value: the string forms a query string needs (`"5"`, `"true"`) are not published, since MCP
 *   arguments are JSON. The tools still accept them (the zod schemas are REST's); the published schema is the
 *   portable subset of what is accepted.
 * Constraints (minimum, maximum, minLength, maxLength, pattern, enum, minItems, maxItems) and descriptions are kept.
 *
 * Output schemas are zod's, with each `type` list holding null written as `anyOf` of the other type and null (no
 * wrapping: LangChain's adapters convert only input schemas).
 *
 * A schema that cannot be written so (two non-string types in one value) throws: tools/list is computed at start-up,
 * so the service refuses to start rather than publish a schema that converts with loss.
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords that describe a value without constraining it: they stay beside `anyOf`, where every converter keeps them. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

function typesOf(schema: Json): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  return typeof schema.type === 'string' ? [schema.type] : [];
}

const isNullOnly = (schema: Json) => typesOf(schema).length === 1 && typesOf(schema)[0] === 'null';

/** `anyOf` (nested ones too) -> its branches, flat. */
function branchesOf(schema: Json): Json[] {
  if (!Array.isArray(schema.anyOf)) return [schema];
  return (schema.anyOf as Json[]).flatMap(branchesOf);
}

/** A single-type schema that also takes null: `anyOf` of the schema and null, its annotations outside. */
function orNull(schema: Json): Json {
  const outer: Json = {};
  const inner: Json = {};
  for (const [key, value] of Object.entries(schema)) (ANNOTATIONS.has(key) ? outer : inner)[key] = value;
  if (Array.isArray(inner.enum)) inner.enum = inner.enum.filter((v) => v !== null);
  return { ...outer, anyOf: [inner, { type: 'null' }] };
}

/** `orNull` as inputs publish it: an object's branch wrapped in an `anyOf` of its own (see the header). */
function inputOrNull(schema: Json): Json {
  const nullable = orNull(schema);
  const [value, nullBranch] = nullable.anyOf as Json[];
  return value.type === 'object' ? { ...nullable, anyOf: [{ anyOf: [value] }, nullBranch] } : nullable;
}

/** One input value: one JSON type, `anyOf` with null when `nullable`. */
function inputValue(schema: Json, nullable: boolean, where: string): Json {
  const { anyOf: _anyOf, ...outer } = schema;
  let branches = branchesOf(schema);
  if (branches.some(isNullOnly)) nullable = true;
  branches = branches.filter((b) => !isNullOnly(b));
  // A string branch beside a number, integer or boolean one is a query-string form of it: not needed in JSON.
  if (branches.length > 1 && branches.some((b) => !typesOf(b).includes('string'))) branches = branches.filter((b) => !typesOf(b).includes('string'));
  if (branches.length !== 1) throw new Error(`${where}: not one JSON type (${branches.length} alternatives)`);
  const merged: Json = { ...outer, ...branches[0] };
  let types = typesOf(merged).filter((t) => t !== 'null');
  if (types.length > 1 && types.some((t) => t !== 'string')) types = types.filter((t) => t !== 'string');
  if (types.length !== 1) throw new Error(`${where}: not one JSON type (${types.join(', ') || 'none'})`);
  const [type] = types;
  merged.type = type;
  if (Array.isArray(merged.enum)) merged.enum = merged.enum.filter((v) => v !== null);
  if (type === 'object') inputObject(merged, where);
  if (type === 'array' && isObject(merged.items)) merged.items = inputValue(merged.items, false, `${where}[]`);
  return nullable ? inputOrNull(merged) : merged;
}

/** An object in place: its properties portable (the optional ones nullable), `required` as declared, no other property. */
function inputObject(schema: Json, where: string): void {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  schema.properties = Object.fromEntries(
    Object.entries(properties).map(([key, value]) => [key, inputValue(value as Json, !required.includes(key), where ? `${where}.${key}` : key)]),
  );
  if (required.length > 0) schema.required = required;
  else delete schema.required;
  schema.additionalProperties = false;
}

export function portableInputSchema(schema: Json): Json {
  const out = structuredClone(schema);
  delete out.$schema;
  out.type = 'object';
  inputObject(out, '');
  return out;
}

/** Keywords whose value maps names to schemas (the names are not keywords). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);
/** Keywords whose value is data, not a schema. */
const DATA = new Set([...ANNOTATIONS, 'enum', 'const', 'required']);

/** Every `type` list holding null, anywhere in the schema, as `anyOf` of the other type and null. */
function outputValue(schema: unknown, where: string): unknown {
  if (Array.isArray(schema)) return schema.map((s, i) => outputValue(s, `${where}[${i}]`));
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DATA.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key) && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, outputValue(s, `${where}.${name}`)]));
    else out[key] = outputValue(value, where);
  }
  // a free-form member (zod's `{}` for "any value"): written as what it is, an object of any members
  if (isObject(out.additionalProperties) && Object.keys(out.additionalProperties).length === 0) out.additionalProperties = true;
  if (!Array.isArray(out.type)) return out;
  const types = typesOf(out).filter((t) => t !== 'null');
  if (types.length !== 1) throw new Error(`${where}: not one JSON type (${types.join(', ') || 'none'})`);
  const nullable = typesOf(out).includes('null');
  out.type = types[0];
  return nullable ? orNull(out) : out;
}

export function portableOutputSchema(schema: Json): Json {
  return outputValue(schema, 'output') as Json;
}
