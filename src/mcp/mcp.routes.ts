import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AppError } from '../lib/errors.js';
import type { Services } from '../services.js';
import { createMcpServer } from './server.js';

/** Protocol versions we promise; a client asking for anything else is answered with the newest of these. */
export const MCP_PROTOCOL_VERSIONS = ['2025-06-18', '2025-03-26', '2024-11-05'] as const;
const NEWEST = MCP_PROTOCOL_VERSIONS[0];
const MCP_BODY_LIMIT = 64 * 1024;

type JsonRpcMessage = { jsonrpc?: unknown; method?: unknown; params?: { protocolVersion?: unknown } };

const messagesOf = (body: unknown): JsonRpcMessage[] =>
  (Array.isArray(body) ? body : [body]).filter((m): m is JsonRpcMessage => typeof m === 'object' && m !== null);

/** Caps the negotiated version at the newest we promise (the SDK itself would offer 2025-11-25). */
function capProtocolVersion(body: unknown): void {
  for (const m of messagesOf(body)) {
    if (m.method === 'initialize' && m.params && !(MCP_PROTOCOL_VERSIONS as readonly unknown[]).includes(m.params.protocolVersion)) {
      m.params.protocolVersion = NEWEST;
    }
  }
}

/**
 * Clients that send only `Accept: application/json` (or nothing) are served: we always answer JSON,
 * never SSE, so the SDK's demand for both types (issue #1944) adds nothing here.
 */
const ACCEPT_BOTH = 'application/json, text/event-stream';

export function registerMcpRoutes(api: FastifyInstance, services: Services): void {
  // Each tool call spends one request of the key's budget (shared with REST); initialize, tools/list and
  // notifications only read it, so protocol chatter never uses up a conversation's budget.
  const limiter = api.createRateLimit();

  async function spendBudget(req: FastifyRequest, reply: FastifyReply, toolCalls: number): Promise<void> {
    let result = await limiter(req, { increment: toolCalls > 0 });
    for (let i = 1; i < toolCalls && !('isExceeded' in result && result.isExceeded); i++) result = await limiter(req);
    if (result.isAllowed) return;
    const reset = String(result.ttlInSeconds);
    reply.header('x-ratelimit-limit', result.max).header('x-ratelimit-remaining', result.remaining).header('x-ratelimit-reset', reset);
    if (result.isExceeded) {
      throw new AppError('rate_limited', `rate limit of ${result.max} requests per window exceeded for this key (each tool call counts); retry after ${reset} s`, undefined, {
        'retry-after': reset,
      });
    }
  }

  api.post('/mcp', { bodyLimit: MCP_BODY_LIMIT, config: { rateLimit: false } }, async (req, reply) => {
    const messages = messagesOf(req.body);
    await spendBudget(req, reply, messages.filter((m) => m.method === 'tools/call').length);
    capProtocolVersion(req.body);

    const origin = services.media.origin(req);
    const server = createMcpServer({ services, tenant: req.tenant, origin }, (err, tool) => req.log.error({ err, tool }, 'tool failed'));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
      }
      headers.set('accept', ACCEPT_BOTH);
      headers.set('content-type', 'application/json');
      const response = await transport.handleRequest(
        // The transport takes the body Fastify already parsed (parsedBody); the Request carries only method and headers.
        new Request(`http://localhost${req.url}`, { method: 'POST', headers }),
        { parsedBody: req.body },
      );
      reply.status(response.status);
      response.headers.forEach((value, name) => {
        if (name !== 'content-length') reply.header(name, value);
      });
      const text = await response.text();
      return reply.send(text === '' ? undefined : text);
    } finally {
      await transport.close().catch(() => {});
      await server.close().catch(() => {});
    }
  });

  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'POST');
    throw new AppError('method_not_allowed', 'the MCP endpoint takes POST only (Streamable HTTP, stateless, JSON responses; no SSE stream, no sessions)');
  };
  api.get('/mcp', { config: { rateLimit: false } }, notAllowed);
  api.delete('/mcp', { config: { rateLimit: false } }, notAllowed);
}
