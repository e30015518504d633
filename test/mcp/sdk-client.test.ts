import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expectRestShaped, openShop, REQUIRED, requiredOf, resultJson, TOOL_NAMES, toolCalls, type Shop } from './client-calls.js';

/**
 * The official SDK client: the published schemas say what the contract says (only its required
 * parameters required, every optional one nullable, no `type` list anywhere), the calls every other client test
 * makes are valid against them, and the client calls every tool with only the required arguments and again with
 * nulls, each answer the REST one.
 */
let shop: Shop;
let client: Client;
let published: Tool[];

beforeAll(async () => {
  shop = await openShop();
  client = new Client({ name: 'vitest-sdk', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(shop.url), { requestInit: { headers: { 'x-api-key': shop.key } } }));
  published = (await client.listTools()).tools;
});
afterAll(async () => {
  await client?.close();
  await shop?.close();
});

/** Every `type` that is a list, by path, in a schema. */
function typeLists(schema: unknown, at: string): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const here = Array.isArray((schema as { type?: unknown }).type) ? [at] : [];
  return here.concat(Object.entries(schema).flatMap(([k, v]) => typeLists(v, `${at}.${k}`)));
}

describe('the published schemas', () => {
  it('require only what the contract requires, at every level', () => {
    expect(published.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    expect(requiredOf(published.map((t) => [t.name, t.inputSchema]))).toEqual(REQUIRED);
    const place: unknown = published.find((t) => t.name === 'place_order')!.inputSchema;
    expect(place).toHaveProperty('properties.customer.required', ['name', 'phone']);
    expect(place).toHaveProperty('properties.items.items.required', ['product_id', 'quantity']);
    // an object's branch in an anyOf of its own (src/mcp/portable.ts: what LangChain's adapters need to take null)
    expect(place).toHaveProperty('properties.delivery_address.anyOf.0.anyOf.0.required', ['line1', 'city', 'pincode']);
    expect(place).toHaveProperty('properties.delivery_address.anyOf.1', { type: 'null' });
  });

  it('write no type as a list, in inputs or outputs (the form single-type dialects cannot take)', () => {
    for (const tool of published) {
      expect(typeLists(tool.inputSchema, 'inputSchema'), tool.name).toEqual([]);
      expect(typeLists(tool.outputSchema, 'outputSchema'), tool.name).toEqual([]);
    }
  });

  it("accept every client test's calls: only the required arguments, and every optional one null", () => {
    const ajv = new Ajv2020({ strict: false });
    for (const call of [...toolCalls('required', 'schema'), ...toolCalls('nulls', 'schema')]) {
      const validate = ajv.compile(published.find((t) => t.name === call.tool)!.inputSchema);
      expect(validate(call.args), `${call.label}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});

describe('the official SDK client calls every tool', () => {
  it.each([...toolCalls('required', 'sdk'), ...toolCalls('nulls', 'sdk')].map((c) => [c.label, c] as const))('%s', async (_label, call) => {
    const result = await client.callTool({ name: call.tool, arguments: call.args });
    const answer = resultJson(result, call.label);
    expect(result.structuredContent, call.label).toEqual(answer);
    await expectRestShaped(shop, call, answer);
  });
});
