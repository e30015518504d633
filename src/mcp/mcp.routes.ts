import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AppError } from '../contract/errors.js';
import type { Services } from '../services.js';
import {
  batchRefusal,
  budgetCost,
  capProtocolVersion,
  claimsModernRevision,
  directModernToolCall,
  directToolCall,
  invalidParams,
  invalidRequestId,
  modernHeadersOf,
  normaliseNulls,
  JSONRPC_INVALID_REQUEST,
  protocolVersionOf,
  rpcError,
  type JsonRpcError,
} from './protocol.js';
import { answerToolCall, createMcpServer, toolCallResponse, type ToolObserver } from './server.js';
import { createModernMcpHandler, modernAuthInfo } from './modern.js';

const MCP_BODY_LIMIT = 64 * 1024;

/**
 * Clients that send only `Accept: application/json` (or nothing) are served: we always answer JSON,
 * never SSE, so the SDK's demand for both types (issue #1944) adds nothing here.
 */
const ACCEPT_BOTH = 'application/json, text/event-stream';

/** The web Request the SDK transports take: method and headers; the body goes beside it, already parsed. */
function webRequest(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  headers.set('accept', ACCEPT_BOTH);
  headers.set('content-type', 'application/json');
  return new Request(`http://localhost${req.url}`, { method: 'POST', headers });
}

/** Copies the SDK's web Response onto Fastify's reply, so Fastify keeps its hooks and headers (rate limit, request id). */
async function sendResponse(reply: FastifyReply, response: Response, extra: JsonRpcError[] = []): Promise<FastifyReply> {
  reply.status(response.status);
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') reply.header(name, value);
  });
  const text = await response.text();
  if (extra.length > 0 && (response.status === 200 || response.status === 202)) {
    // A batch with some malformed requests: their errors join the SDK's answers in one array.
    reply.status(200).header('content-type', 'application/json');
    return reply.send(JSON.stringify([...(text === '' ? [] : [JSON.parse(text) as unknown].flat()), ...extra]));
  }
  return reply.send(text === '' ? undefined : text);
}

/** The 2025 era (2024-11-05 … 2025-11-25) on the v1 SDK's stateless transport in JSON mode. */
async function serveLegacy(reply: FastifyReply, body: unknown, request: Request, server: Server): Promise<FastifyReply> {
  // Requests whose params have the wrong JSON type are answered here (-32602); the rest go to the SDK.
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  const answered: JsonRpcError[] = [];
  const forward = messages.filter((m) => {
    const error = invalidRequestId(m) ?? invalidParams(m);
    if (error) answered.push(error);
    return !error;
  });
  if (forward.length === 0) return reply.status(200).send(Array.isArray(body) ? answered : answered[0]);
  capProtocolVersion(forward);

  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    // The transport takes the body Fastify already parsed (parsedBody); the Request carries only method and headers.
    const response = await transport.handleRequest(request, { parsedBody: Array.isArray(body) ? forward : forward[0] });
    return await sendResponse(reply, response, answered);
  } finally {
    await transport.close().catch(() => {});
    await server.close().catch(() => {});
  }
}

export function registerMcpRoutes(
  api: FastifyInstance,
  services: Services,
  toolCalled?: (tool: string, outcome: string) => void,
  directToolCalls = true,
): void {
  // A single tools/call spends one request of the key's budget (shared with REST); a single initialize,
  // tools/list or notification only reads it, so protocol chatter never uses up a conversation's budget.
  // Every message of a batch spends one (src/mcp/protocol.ts).
  const limiter = api.createRateLimit();

  async function spendBudget(req: FastifyRequest, reply: FastifyReply, cost: number): Promise<void> {
    let result = await limiter(req, { increment: cost > 0 });
    for (let i = 1; i < cost && !('isExceeded' in result && result.isExceeded); i++) result = await limiter(req);
    if (result.isAllowed) return;
    const reset = String(result.ttlInSeconds);
    reply.header('x-ratelimit-limit', result.max).header('x-ratelimit-remaining', result.remaining).header('x-ratelimit-reset', reset);
    if (result.isExceeded) {
      throw new AppError(
        'rate_limited',
        `rate limit of ${result.max} requests per window exceeded for this key (each tool call, and each message of a batch, counts); retry after ${reset} s`,
        undefined,
        {
          'retry-after': reset,
        },
      );
    }
  }

  const modern = createModernMcpHandler(MCP_BODY_LIMIT);
  api.addHook('onClose', async () => modern.close());

  // localNamesOnly: a local server's MCP endpoint refuses foreign Host names (src/http/origin.ts).
  // keyInFirstStatement 'per tool': a known key is served from memory and each tool's definition decides (tools.ts);
  // any other message is authenticated in full before its answer leaves (src/http/auth.ts).
  api.post('/mcp', { bodyLimit: MCP_BODY_LIMIT, config: { rateLimit: false, keyInFirstStatement: 'per tool', localNamesOnly: true } }, async (req, reply) => {
    const body: unknown = req.body;
    const rawHeader = req.headers['mcp-protocol-version'];
    const header = typeof rawHeader === 'string' ? rawHeader : undefined;
    // Refused whole before any work or budget: the SDK's own form for transport refusals (400, JSON-RPC error, id null).
    const refusal = batchRefusal(body, protocolVersionOf(body, header));
    if (refusal) return reply.status(400).send(rpcError(null, JSONRPC_INVALID_REQUEST, `Invalid Request: ${refusal}`));
    // Both paths below, the direct one and the SDK's, take the same messages: nulls read as absent, ids we can answer.
    normaliseNulls(body);
    const badId = Array.isArray(body) ? undefined : invalidRequestId(body);
    if (badId) return reply.status(400).send(badId);
    await spendBudget(req, reply, budgetCost(body));

    const observe: ToolObserver = { failed: (err, tool) => req.log.error({ err, tool }, 'tool failed'), called: toolCalled };
    const ctx = { services, tenant: req.tenant, origin: services.media.origin(req) };
    // A single 2025-era tools/call, the common request, is answered here as the SDK's server would answer it (the same
    // `answerToolCall`, its response written by `toolCallResponse`; test/mcp/direct-tool-calls.test.ts compares the
    // bytes), without building a server, a transport and web Request/Response objects for it.
    // Revision 2026-07-28 is told by its `_meta` envelope (or its header); everything else is the 2025 era. A single
    // 2026-07-28 tools/call is answered directly too when its headers and envelope are plainly what that revision asks.
    const modernClaimed = claimsModernRevision(body, header);
    const direct = !directToolCalls ? undefined : modernClaimed ? directModernToolCall(body, modernHeadersOf(req.headers)) : directToolCall(body, header);
    if (direct) {
      const result = await answerToolCall(ctx, direct.params, observe, modernClaimed ? 'modern' : 'legacy');
      return reply.status(200).header('content-type', 'application/json').send(toolCallResponse(direct.id, result));
    }
    const request = webRequest(req);
    if (modernClaimed && !(await isLegacyRequest(request, body))) {
      return sendResponse(reply, await modern.fetch(request, { parsedBody: body, authInfo: modernAuthInfo(ctx, observe) }));
    }
    return serveLegacy(reply, body, request, createMcpServer(ctx, observe));
  });

  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'POST');
    throw new AppError('method_not_allowed', 'the MCP endpoint takes POST only (Streamable HTTP, stateless, JSON responses; no SSE stream, no sessions)');
  };
  api.get('/mcp', { config: { rateLimit: false, localNamesOnly: true } }, notAllowed);
  api.delete('/mcp', { config: { rateLimit: false, localNamesOnly: true } }, notAllowed);
}
