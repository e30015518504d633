import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AppError } from '../contract/errors.js';
import type { Services } from '../services.js';
import { capProtocolVersion, invalidParams, invalidRequestId, type JsonRpcError } from './protocol.js';
import { classifyPost } from './classify.js';
import { answerToolCall, createMcpServer, type ToolObserver } from './server.js';
import { createModernMcpHandler, modernAuthInfo } from './modern.js';
import { toolCallResponse } from './tool-result.js';

const MCP_BODY_LIMIT = 64 * 1024;

/**
 * Clients that send only `Accept: application/json` (or nothing) are served: we always answer JSON,
 * never SSE, so the SDK's demand for both types (typescript-sdk#1944) adds nothing here.
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
async function serveLegacy(reply: FastifyReply, body: unknown, batch: boolean, request: Request, server: Server): Promise<FastifyReply> {
  // Requests whose params have the wrong JSON type are answered here (-32602); the rest go to the SDK.
  const messages: unknown[] = batch ? (body as unknown[]) : [body];
  const answered: JsonRpcError[] = [];
  const forward = messages.filter((m) => {
    const error = invalidRequestId(m) ?? invalidParams(m);
    if (error) answered.push(error);
    return !error;
  });
  if (forward.length === 0) return reply.status(200).send(batch ? answered : answered[0]);
  capProtocolVersion(forward);

  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    // The transport takes the body Fastify already parsed (parsedBody); the Request carries only method and headers.
    const response = await transport.handleRequest(request, { parsedBody: batch ? forward : forward[0] });
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
    const post = await classifyPost(body, req.headers, { directToolCalls, request: () => webRequest(req) });
    if (post.road === 'refused') return reply.status(400).send(post.answer);
    await spendBudget(req, reply, post.cost);

    const observe: ToolObserver = { failed: (err, tool) => req.log.error({ err, tool }, 'tool failed'), called: toolCalled };
    const ctx = { services, tenant: req.tenant, origin: services.media.origin(req) };
    if (post.road === 'direct') {
      const answer = await answerToolCall(ctx, post.call.params, observe);
      return reply
        .status(200)
        .header('content-type', 'application/json')
        .send(toolCallResponse(post.call.id, answer, post.era));
    }
    if (post.era === 'modern') {
      return sendResponse(reply, await modern.fetch(post.request, { parsedBody: body, authInfo: modernAuthInfo(ctx, observe) }));
    }
    return serveLegacy(reply, body, post.batch, post.request, createMcpServer(ctx, observe));
  });

  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'POST');
    throw new AppError('method_not_allowed', 'the MCP endpoint takes POST only (Streamable HTTP, stateless, JSON responses; no SSE stream, no sessions)');
  };
  api.get('/mcp', { config: { rateLimit: false, localNamesOnly: true } }, notAllowed);
  api.delete('/mcp', { config: { rateLimit: false, localNamesOnly: true } }, notAllowed);
}
