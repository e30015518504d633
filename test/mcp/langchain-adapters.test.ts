import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { loadMcpTools } from '@langchain/mcp-adapters';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { constraintsOf, STRICT_CALLS } from './strict-calls.js';

/**
 * LangChain's MCP adapters (@langchain/mcp-adapters, loadMcpTools) on the official SDK client connected to the
 * listening app (issue 18): every tool converts keeping each property's type, nullability and constraints (the
 * adapter drops `anyOf`, so a property written so would lose its type), and each converted tool, called with a
 * strict model's arguments, succeeds against the real database.
 */
const BASE = '/api/v1/commerce';
let testDb: TestDatabase;
let ctx: TestApp;
let client: Client;
let published: Tool[];
let converted: Map<string, DynamicStructuredTool>;

beforeAll(async () => {
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
  client = new Client({ name: 'vitest-langchain', version: '1.0.0' });
  await client.connect(transport);
  published = (await client.listTools()).tools;
  converted = new Map((await loadMcpTools('commerce', client)).map((t) => [t.name, t]));
});
afterAll(async () => {
  await client?.close();
  await ctx?.app.close();
  await testDb?.drop();
});

describe("LangChain's MCP adapters", () => {
  it('converts every tool without losing a type, a null or a constraint', () => {
    expect([...converted.keys()].sort()).toEqual(published.map((t) => t.name).sort());
    for (const tool of published) {
      const schema = converted.get(tool.name)!.schema as Record<string, unknown>;
      expect(constraintsOf(schema, tool.name), tool.name).toEqual(constraintsOf(tool.inputSchema, tool.name));
      // the adapter's simplification has nothing to do: the schema reaches the model as published
      expect(schema, tool.name).toEqual(tool.inputSchema);
    }
    const place = converted.get('place_order')!.schema as { properties: Record<string, { type: unknown }> };
    expect(place.properties.delivery_address.type).toEqual(['object', 'null']);
    const browse = converted.get('browse_catalog')!.schema as { properties: Record<string, { type: unknown }> };
    expect(browse.properties.in_stock.type).toEqual(['boolean', 'null']);
    expect(browse.properties.limit.type).toEqual(['integer', 'null']);
  });

  it('every strict call is valid against the published schema (every property present)', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const [name, args] of STRICT_CALLS) {
      const validate = ajv.compile(published.find((t) => t.name === name)!.inputSchema);
      expect(validate(args), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(new Set(STRICT_CALLS.map(([name]) => name))).toEqual(new Set(published.map((t) => t.name)));
  });

  it.each(STRICT_CALLS.map(([name, args], i) => [`${i + 1}. ${name}`, name, args] as const))(
    '%s called through the converted tool with a strict model’s arguments succeeds',
    async (_label, name, args) => {
      const tool = converted.get(name)!;
      // a tool error becomes a ToolException: resolving is success
      const out: unknown = await tool.invoke(args);
      const text = JSON.stringify(out);
      if (name === 'browse_catalog') expect(text).toContain('SHIRT-RED-XL');
      if (name === 'place_order') expect(text).toMatch(/ORD-/);
      if (name === 'get_order') expect(text).toContain('strict-1');
      if (name === 'find_customer') expect(text).toContain('Asha Rao');
    },
  );
});
