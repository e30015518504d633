import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { constraintsOf, STRICT_CALLS } from './strict-calls.js';

/**
 * The OpenAI Agents SDK's MCP tool conversion (@openai/agents-core mcpToFunctionTool, as an agent with
 * `mcpConfig.convertSchemasToStrict: true` runs it) on our tools/list (issue 18): every tool converts to strict
 * mode without falling back, its parameters are the published schema (no constraint dropped), and each converted
 * tool, invoked with a strict model's arguments, succeeds against the real app and database.
 * The package wants Node 22+ (its `openai` dependency), so it is not a devDependency (`npm ci` on Node 20 would
 * print EBADENGINE): .ci/mcp-conformance.sh installs it into a cache folder and runs this file on Node 24 with
 * OPENAI_AGENTS_CORE_DIR set. Without the folder the file is skipped.
 */
const PACKAGE_DIR = process.env.OPENAI_AGENTS_CORE_DIR ?? join(homedir(), '.cache/commerce-api/mcp-conformance/node_modules/@openai/agents-core');
const ENTRY = join(PACKAGE_DIR, 'dist/index.mjs');
const available = process.env.OPENAI_AGENTS_CORE_DIR !== undefined || (existsSync(ENTRY) && Number(process.versions.node.split('.')[0]) >= 22);

interface FunctionTool {
  name: string;
  strict: boolean;
  parameters: Record<string, unknown>;
  invoke(runContext: unknown, input: string): Promise<unknown>;
}
interface AgentsCore {
  mcpToFunctionTool(tool: Tool, server: unknown, convertSchemasToStrict: boolean): FunctionTool;
  RunContext: new () => unknown;
}

const BASE = '/api/v1/commerce';
let testDb: TestDatabase;
let ctx: TestApp;
let client: Client;
let published: Tool[];
let agents: AgentsCore;
const results: CallToolResult[] = [];

/** The agents SDK's view of an MCP server: its calls go through the official SDK client to the listening app. */
const server = () => ({
  name: 'commerce',
  cacheToolsList: false,
  async callTool(name: string, args: Record<string, unknown> | null) {
    const result = (await client.callTool({ name, arguments: args ?? {} })) as CallToolResult;
    results.push(result);
    return result.content;
  },
});

describe.skipIf(!available)("the OpenAI Agents SDK's strict MCP conversion", () => {
  beforeAll(async () => {
    agents = (await import(pathToFileURL(ENTRY).href)) as AgentsCore;
    testDb = await createTestDatabase();
    ctx = await buildTestApp(testDb.db);
    const origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const tenant = await createCompanyWithKey(ctx.services);
    await addLocations(ctx.db, tenant.company.id);
    await addProduct(ctx.db, tenant.company.id, {
      sku: 'SHIRT',
      name: 'Cotton Shirt',
      variants: [{ sku: 'SHIRT-RED-XL', selling_price: '799.00', stock: '10' }],
    });
    const transport = new StreamableHTTPClientTransport(new URL(`${origin}${BASE}/mcp`), { requestInit: { headers: { 'x-api-key': tenant.key } } });
    client = new Client({ name: 'vitest-openai-agents', version: '1.0.0' });
    await client.connect(transport);
    published = (await client.listTools()).tools;
  });
  afterAll(async () => {
    await client?.close();
    await ctx?.app.close();
    await testDb?.drop();
  });

  it('converts every tool to strict mode, without fallback and without dropping a constraint', () => {
    expect(published).toHaveLength(8);
    for (const tool of published) {
      const converted = agents.mcpToFunctionTool(tool, server(), true);
      expect(converted.strict, tool.name).toBe(true);
      expect(constraintsOf(converted.parameters, tool.name), tool.name).toEqual(constraintsOf(tool.inputSchema, tool.name));
      expect(converted.parameters, tool.name).toEqual(tool.inputSchema);
    }
  });

  it.each(STRICT_CALLS.map(([name, args], i) => [`${i + 1}. ${name}`, name, args] as const))(
    '%s invoked through the converted tool with a strict model’s arguments succeeds',
    async (_label, name, args) => {
      const converted = agents.mcpToFunctionTool(
        published.find((t) => t.name === name)!,
        server(),
        true,
      );
      const before = results.length;
      const out = await converted.invoke(new agents.RunContext(), JSON.stringify(args));
      expect(results.length, JSON.stringify(out)).toBe(before + 1);
      const result = results[before];
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const text = JSON.stringify(result.structuredContent);
      if (name === 'browse_catalog') expect(text).toContain('SHIRT-RED-XL');
      if (name === 'place_order') expect(text).toMatch(/ORD-/);
      if (name === 'get_order') expect(text).toContain('strict-1');
      if (name === 'find_customer') expect(text).toContain('Asha Rao');
    },
  );
});
