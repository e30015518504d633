import {
  createMcpHandler,
  ResourceNotFoundError,
  Server,
  type AuthInfo,
  type CallToolResult,
  type ListToolsResult,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { MCP_LIST_CACHE_TTL_MS, SERVED_PROTOCOL_VERSIONS, SERVER_INFO } from '../contract/mcp.js';
import { answerToolCall, INSTRUCTIONS, TOOL_LIST, type ToolObserver } from './server.js';
import { toolResult } from './tool-result.js';
import type { ToolContext } from './tools.js';

/**
 * Revision 2026-07-28 (stateless: `server/discover`, a `_meta` envelope on every request, `Mcp-Method`/`Mcp-Name`
 * headers checked against the body) with the official v2 SDK. Legacy requests never reach this handler
 * (`legacy: 'reject'`): mcp.routes.ts sends them to the v1 transport, which answers JSON as the contract says.
 */

/** What one request hands the factory: the tenant's tool context and the request's observer. */
interface RequestScope {
  ctx: ToolContext;
  observe: ToolObserver;
}

const SCOPE = 'commerce-api/request';

/** The request's scope travels as auth info (the SDK passes it through untouched): the key decided the tenant. */
export function modernAuthInfo(ctx: ToolContext, observe: ToolObserver): AuthInfo {
  return { token: '', clientId: ctx.tenant.companyId, scopes: [], extra: { [SCOPE]: { ctx, observe } satisfies RequestScope } };
}

const OUTPUT_SCHEMAS = new Map(TOOL_LIST.map((t) => [t.name, t.outputSchema]));
/** Shared by every request's server (one server per request; the SDK would build an Ajv for each), as in server.ts. */
const VALIDATOR = new AjvJsonSchemaValidator();

function createModernServer(scope: RequestScope): Server {
  const server = new Server(SERVER_INFO, {
    // Prompts and resources: none, answered as empty lists (clients and the conformance suite ask for them).
    capabilities: { tools: { listChanged: false }, prompts: { listChanged: false }, resources: { listChanged: false } },
    instructions: INSTRUCTIONS,
    supportedProtocolVersions: [...SERVED_PROTOCOL_VERSIONS],
    jsonSchemaValidator: VALIDATOR,
    // Lists and discovery hold no company's data; tool results (live stock) are not cacheable in this revision.
    cacheHints: {
      'tools/list': { ttlMs: MCP_LIST_CACHE_TTL_MS, cacheScope: 'public' },
      'server/discover': { ttlMs: MCP_LIST_CACHE_TTL_MS, cacheScope: 'public' },
      'prompts/list': { ttlMs: MCP_LIST_CACHE_TTL_MS, cacheScope: 'public' },
      'resources/list': { ttlMs: MCP_LIST_CACHE_TTL_MS, cacheScope: 'public' },
      'resources/templates/list': { ttlMs: MCP_LIST_CACHE_TTL_MS, cacheScope: 'public' },
    },
  });
  server.setRequestHandler('tools/list', async () => ({ tools: TOOL_LIST as ListToolsResult['tools'] }));
  server.setRequestHandler('prompts/list', async () => ({ prompts: [] }));
  server.setRequestHandler('resources/list', async () => ({ resources: [] }));
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));
  // The capability is declared (for the empty lists), so a read is answered as the revision asks: not found (-32602, the URI in data).
  server.setRequestHandler('resources/read', async (req) => {
    throw new ResourceNotFoundError(req.params.uri);
  });
  server.setRequestHandler('tools/call', async (req) => {
    const result = toolResult(await answerToolCall(scope.ctx, req.params, scope.observe), 'modern') as CallToolResult;
    return server.projectCallToolResult(result, OUTPUT_SCHEMAS.get(req.params.name));
  });
  return server;
}

export function createModernMcpHandler(maxRequestBodySize: number): McpHttpHandler {
  return createMcpHandler(
    ({ authInfo }) => {
      const scope = authInfo?.extra?.[SCOPE] as RequestScope | undefined;
      if (!scope) throw new Error('MCP request without its tenant scope');
      return createModernServer(scope);
    },
    // The default response mode answers one JSON body unless a handler sends a message before its result, which
    // ours never do ('json' would say the same and print a warning at every start).
    { legacy: 'reject', maxRequestBodySize },
  );
}
