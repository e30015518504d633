import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';

/**
 * The Vercel AI SDK's MCP client (@ai-sdk/mcp 2.x) as a real 2026-07-28 client. It wants Node 22+, so it is not a
 * devDependency (`npm ci` on Node 20 would print EBADENGINE): .ci/mcp-conformance.sh installs it into a cache
 * folder and runs this file on Node 24 with AI_SDK_MCP_DIR set. Without the folder the file is skipped.
 */
const PACKAGE_DIR = process.env.AI_SDK_MCP_DIR ?? join(homedir(), '.cache/commerce-api/mcp-conformance/node_modules/@ai-sdk/mcp');
const ENTRY = join(PACKAGE_DIR, 'dist/index.js');
// Named explicitly (CI), it must run; otherwise it runs where the cache folder has it and Node is new enough.
const available = process.env.AI_SDK_MCP_DIR !== undefined || (existsSync(ENTRY) && Number(process.versions.node.split('.')[0]) >= 22);

interface AiSdkMcpClient {
  serverInfo: { name: string };
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(args: { name: string; arguments?: Record<string, unknown> }): Promise<{ isError?: boolean; structuredContent?: unknown; content: unknown[] }>;
  tools(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}
type CreateMcpClient = (config: {
  transport: { type: 'http'; url: string; headers?: Record<string, string>; fetch?: typeof fetch };
}) => Promise<AiSdkMcpClient>;

const BASE = '/api/v1/commerce';
let testDb: TestDatabase;
let ctx: TestApp;
let origin: string;
let key: string;

describe.skipIf(!available)('the Vercel AI SDK MCP client (2026-07-28 from its first request)', () => {
  beforeAll(async () => {
    testDb = await createTestDatabase();
    ctx = await buildTestApp(testDb.db);
    origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const tenant = await createCompanyWithKey(ctx.services);
    key = tenant.key;
    await addLocations(ctx.db, tenant.company.id);
    await addProduct(ctx.db, tenant.company.id, {
      sku: 'SHIRT',
      name: 'Cotton Shirt',
      variants: [{ sku: 'SHIRT-RED-XL', selling_price: '799.00', stock: '10' }],
    });
  });
  afterAll(async () => {
    await ctx?.app.close();
    await testDb?.drop();
  });

  it('discovers with 2026-07-28, lists the tools and calls browse_catalog without falling back to initialize', async () => {
    const { createMCPClient } = (await import(pathToFileURL(ENTRY).href)) as { createMCPClient: CreateMcpClient };
    const sent: { method: string; version: string | null; body: Record<string, unknown>; status: number }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
      sent.push({ method: String(body.method), version: new Headers(init?.headers).get('mcp-protocol-version'), body, status: response.status });
      return response;
    };
    const client = await createMCPClient({ transport: { type: 'http', url: `${origin}${BASE}/mcp`, headers: { 'x-api-key': key }, fetch: recording } });
    try {
      expect(client.serverInfo.name).toBe('commerce-api');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('browse_catalog');
      expect(tools).toHaveLength(8);
      expect(Object.keys(await client.tools())).toHaveLength(8);
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
});
