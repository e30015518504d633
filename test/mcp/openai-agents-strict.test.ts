import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expectRestShaped, openShop, REQUIRED, requiredOf, TOOL_NAMES, toolCalls, type Shop } from './client-calls.js';

/**
 * The OpenAI Agents SDK (`@openai/agents`) as an agent runs MCP tools: an `Agent` with our server as an
 * `MCPServerStreamableHttp` and `mcpConfig.convertSchemasToStrict: true`. We publish the contract's form (only its
 * required parameters required); the SDK derives OpenAI's strict form from it: every tool converts with
 * `strict: true`, the derived schema follows the strict-mode rules and differs from ours only by listing every
 * property as required, a strict model's call (every property, null where unused) is valid against it, and each
 * tool invoked with only the required arguments and again with nulls succeeds, each answer the REST one.
 * The package wants Node 22+ (its `openai` dependency), so it is not a devDependency (`npm ci` on Node 20 would
 * print EBADENGINE): .ci/mcp-conformance.sh installs it into a cache folder and runs this file on Node 24 with
 * OPENAI_AGENTS_DIR set. Without the folder the file is skipped.
 */
const PACKAGE_DIR = process.env.OPENAI_AGENTS_DIR ?? join(homedir(), '.cache/commerce-api/mcp-conformance/node_modules/@openai/agents');
const ENTRY = join(PACKAGE_DIR, 'dist/index.mjs');
const available = process.env.OPENAI_AGENTS_DIR !== undefined || (existsSync(ENTRY) && Number(process.versions.node.split('.')[0]) >= 22);

type Schema = Record<string, unknown>;
interface FunctionTool {
  type: string;
  name: string;
  strict: boolean;
  parameters: Schema;
  invoke(runContext: unknown, input: string): Promise<unknown>;
}
interface McpServer {
  connect(): Promise<void>;
  close(): Promise<void>;
  listTools(): Promise<{ name: string; inputSchema: Schema }[]>;
}
interface Agents {
  Agent: new (config: { name: string; instructions: string; mcpServers: McpServer[]; mcpConfig: { convertSchemasToStrict: boolean } }) => {
    getAllTools(runContext: unknown): Promise<FunctionTool[]>;
  };
  MCPServerStreamableHttp: new (options: { url: string; name: string; cacheToolsList: boolean; requestInit: { headers: Record<string, string> } }) => McpServer;
  RunContext: new () => unknown;
}

/** Keywords OpenAI's strict mode refuses (Structured Outputs, "supported schemas"). */
const REFUSED = [
  'allOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedProperties',
  'propertyNames',
  'contains',
  'prefixItems',
];

/** Where a schema breaks OpenAI's strict-mode rules, by path (empty when it follows them). */
function strictProblems(schema: Schema, at: string, depth = 0): string[] {
  const problems = REFUSED.filter((k) => k in schema).map((k) => `${at}: ${k}`);
  if (!('type' in schema) && !('anyOf' in schema) && !('enum' in schema) && !('const' in schema)) problems.push(`${at}: no type`);
  if (Array.isArray(schema.anyOf)) problems.push(...(schema.anyOf as Schema[]).flatMap((s, i) => strictProblems(s, `${at}.anyOf[${i}]`, depth)));
  if (schema.type === 'object') {
    if (depth > 10) problems.push(`${at}: nested deeper than 10 objects`);
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (schema.additionalProperties !== false) problems.push(`${at}: additionalProperties is not false`);
    if (JSON.stringify([...((schema.required as string[] | undefined) ?? [])].sort()) !== JSON.stringify(Object.keys(properties).sort()))
      problems.push(`${at}: required is not every property`);
    for (const [key, value] of Object.entries(properties)) problems.push(...strictProblems(value, `${at}.${key}`, depth + 1));
  }
  if (schema.type === 'array' && typeof schema.items === 'object') problems.push(...strictProblems(schema.items as Schema, `${at}[]`, depth));
  return problems;
}

/** The schema without any `required`: what is left when the strict form's one difference is taken out. */
const withoutRequired = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === 'required' ? undefined : value))) as unknown;

let shop: Shop;
let agents: Agents;
let server: McpServer;
let published: Map<string, Schema>;
let tools: Map<string, FunctionTool>;

describe.skipIf(!available)('the OpenAI Agents SDK with convertSchemasToStrict', () => {
  beforeAll(async () => {
    agents = (await import(pathToFileURL(ENTRY).href)) as Agents;
    shop = await openShop();
    server = new agents.MCPServerStreamableHttp({
      url: shop.url,
      name: 'commerce',
      cacheToolsList: false,
      requestInit: { headers: { 'x-api-key': shop.key } },
    });
    await server.connect();
    published = new Map((await server.listTools()).map((t) => [t.name, t.inputSchema]));
    const agent = new agents.Agent({
      name: 'shop assistant',
      instructions: 'Help customers order.',
      mcpServers: [server],
      mcpConfig: { convertSchemasToStrict: true },
    });
    tools = new Map((await agent.getAllTools(new agents.RunContext())).map((t) => [t.name, t]));
  });
  afterAll(async () => {
    await server?.close();
    await shop?.close();
  });

  it('publishes the contract form, and derives a valid strict form of every tool from it', () => {
    expect([...tools.keys()].sort()).toEqual(TOOL_NAMES);
    expect(requiredOf([...published])).toEqual(REQUIRED);
    // ours leaves optional parameters out of `required`, which strict mode does not allow
    expect(strictProblems(published.get('place_order')!, 'place_order')).toEqual([
      'place_order: required is not every property',
      'place_order.customer: required is not every property',
      'place_order.delivery_address.anyOf[0].anyOf[0]: required is not every property',
      'place_order.marketing_consent.anyOf[0].anyOf[0]: required is not every property',
    ]);
    for (const [name, tool] of tools) {
      expect(tool.strict, name).toBe(true);
      expect(strictProblems(tool.parameters, name), name).toEqual([]);
      expect(withoutRequired(tool.parameters), name).toEqual(withoutRequired(published.get(name)));
    }
  });

  it("a strict model's calls (every property, null where unused) are valid against the derived schemas", () => {
    const ajv = new Ajv2020({ strict: false });
    for (const call of toolCalls('nulls', 'openai-schema')) {
      const validate = ajv.compile(tools.get(call.tool)!.parameters);
      expect(validate(call.args), `${call.label}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it.each([...toolCalls('required', 'openai'), ...toolCalls('nulls', 'openai')].map((c) => [c.label, c] as const))(
    '%s invoked through the strict tool',
    async (_label, call) => {
      const out = await tools.get(call.tool)!.invoke(new agents.RunContext(), JSON.stringify(call.args));
      expect(out, call.label).toMatchObject({ type: 'text', text: expect.any(String) });
      await expectRestShaped(shop, call, JSON.parse((out as { text: string }).text));
    },
  );
});
