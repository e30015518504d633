import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRestShaped, openShop, REQUIRED, requiredOf, resultJson, TOOL_NAMES, toolCalls, type Shop } from './client-calls.js';

/**
 * The Vercel AI SDK's MCP client (@ai-sdk/mcp 2.x) as a real 2026-07-28 client, and its tools as an agent gets them
 * (`tools()`): the schema handed to the model requires only what the contract requires, and every tool's `execute`
 * succeeds with only the required arguments and again with nulls, each answer the REST one.
 * It wants Node 22+, so it is not a devDependency (`npm ci` on Node 20 would print EBADENGINE): .ci/mcp-conformance.sh
 * installs it into a cache folder and runs this file on Node 24 with AI_SDK_MCP_DIR set. Without the folder the
 * file is skipped.
 */
const PACKAGE_DIR = process.env.AI_SDK_MCP_DIR ?? join(homedir(), '.cache/commerce-api/mcp-conformance/node_modules/@ai-sdk/mcp');
const ENTRY = join(PACKAGE_DIR, 'dist/index.js');
// Named explicitly (CI), it must run; otherwise it runs where the cache folder has it and Node is new enough.
const available = process.env.AI_SDK_MCP_DIR !== undefined || (existsSync(ENTRY) && Number(process.versions.node.split('.')[0]) >= 22);

interface CallToolResult {
  isError?: boolean;
  structuredContent?: unknown;
  content: unknown[];
}
interface AiSdkTool {
  inputSchema: { jsonSchema: unknown };
  execute(args: Record<string, unknown>, options: { toolCallId: string; messages: unknown[] }): Promise<CallToolResult>;
}
interface AiSdkMcpClient {
  serverInfo: { name: string };
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(args: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult>;
  tools(): Promise<Record<string, AiSdkTool>>;
  close(): Promise<void>;
}
type CreateMcpClient = (config: {
  transport: { type: 'http'; url: string; headers?: Record<string, string>; fetch?: typeof fetch };
}) => Promise<AiSdkMcpClient>;

let shop: Shop;

describe.skipIf(!available)('the Vercel AI SDK MCP client (2026-07-28 from its first request)', () => {
  beforeAll(async () => {
    shop = await openShop();
  });
  afterAll(async () => shop?.close());

  const connect = async (fetchWith?: typeof fetch) => {
    const { createMCPClient } = (await import(pathToFileURL(ENTRY).href)) as { createMCPClient: CreateMcpClient };
    return createMCPClient({ transport: { type: 'http', url: shop.url, headers: { 'x-api-key': shop.key }, ...(fetchWith ? { fetch: fetchWith } : {}) } });
  };

  it('discovers with 2026-07-28, lists the tools and calls browse_catalog without falling back to initialize', async () => {
    const sent: { method: string; version: string | null; body: Record<string, unknown>; status: number }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
      sent.push({ method: String(body.method), version: new Headers(init?.headers).get('mcp-protocol-version'), body, status: response.status });
      return response;
    };
    const client = await connect(recording);
    try {
      expect(client.serverInfo.name).toBe('commerce-api');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('browse_catalog');
      expect(tools).toHaveLength(21);
      expect(Object.keys(await client.tools())).toHaveLength(21);
      const result = await client.callTool({ name: 'browse_catalog', arguments: { search: 'shirt' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ total: 1, data: [{ sku: 'SHIRT' }] });

      expect(sent[0].method).toBe('server/discover');
      expect(sent[0].version).toBe('2026-07-28');
      expect(sent[0].status).toBe(200);
      expect((sent[0].body.params as { _meta: Record<string, unknown> })._meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
      // listTools() and tools() each list; the call is one POST: a fresh client spends two requests on its first call
      expect(sent.map((s) => s.method)).toEqual(['server/discover', 'tools/list', 'tools/list', 'tools/call']);
      expect(sent.every((s) => s.version === '2026-07-28' && s.status === 200)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("hands the model each tool's schema as published, requiring only what the contract requires", async () => {
    const client = await connect();
    try {
      const tools = await client.tools();
      expect(Object.keys(tools).sort()).toEqual(TOOL_NAMES);
      const published = new Map((await client.listTools()).tools.map((t) => [t.name, t as unknown as { inputSchema: Record<string, unknown> }]));
      const given = await Promise.all(Object.entries(tools).map(async ([name, t]) => [name, await t.inputSchema.jsonSchema] as [string, unknown]));
      expect(requiredOf(given)).toEqual(REQUIRED);
      for (const [name, schema] of given) expect(schema, name).toEqual(published.get(name)!.inputSchema);
    } finally {
      await client.close();
    }
  });

  it('executes every tool with only the required arguments and again with nulls, each answer the REST one', async () => {
    const client = await connect();
    try {
      const tools = await client.tools();
      for (const [i, call] of [...toolCalls('required', 'ai-sdk'), ...toolCalls('nulls', 'ai-sdk')].entries()) {
        const result = await tools[call.tool].execute(call.args, { toolCallId: `call_${i}`, messages: [] });
        await expectRestShaped(shop, call, resultJson(result, call.label));
      }
    } finally {
      await client.close();
    }
  });
});
