import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AppError } from '../contract/errors.js';
import type { Services } from '../services.js';
import {
  batchRefusal,
  budgetCost,
  capProtocolVersion,
  invalidParams,
  JSONRPC_INVALID_REQUEST,
  protocolVersionOf,
  rpcError,
  type JsonRpcError,
} from './protocol.js';
import { createMcpServer } from './server.js';

const MCP_BODY_LIMIT = 64 * 1024;

/**
 * Clients that send only `Accept: application/json` (or nothing) are served: we always answer JSON,
 * never SSE, so the SDK's demand for both types (issue #1944) adds nothing here.
 */
const ACCEPT_BOTH = 'application/json, text/event-stream';

export function registerMcpRoutes(api: FastifyInstance, services: Services, toolCalled?: (tool: string, outcome: string) => void): void {
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

  api.post('/mcp', { bodyLimit: MCP_BODY_LIMIT, config: { rateLimit: false } }, async (req, reply) => {
    const body: unknown = req.body;
    const header = req.headers['mcp-protocol-version'];
    // Refused whole before any work or budget: the SDK's own form for transport refusals (400, JSON-RPC error, id null).
    const refusal = batchRefusal(body, protocolVersionOf(body, typeof header === 'string' ? header : undefined));
    if (refusal) return reply.status(400).send(rpcError(null, JSONRPC_INVALID_REQUEST, `Invalid Request: ${refusal}`));
    await spendBudget(req, reply, budgetCost(body));

    // Requests whose params have the wrong JSON type are answered here (-32602); the rest go to the SDK.
    const messages: unknown[] = Array.isArray(body) ? body : [body];
    const answered: JsonRpcError[] = [];
    const forward = messages.filter((m) => {
      const error = invalidParams(m);
      if (error) answered.push(error);
      return !error;
    });
    if (forward.length === 0) return reply.status(200).send(Array.isArray(body) ? answered : answered[0]);
    capProtocolVersion(forward);

    const origin = services.media.origin(req);
    const server = createMcpServer(
      { services, tenant: req.tenant, origin },
      { failed: (err, tool) => req.log.error({ err, tool }, 'tool failed'), called: toolCalled },
    );
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
        { parsedBody: Array.isArray(body) ? forward : forward[0] },
      );
      reply.status(response.status);
      response.headers.forEach((value, name) => {
        if (name !== 'content-length') reply.header(name, value);
      });
      const text = await response.text();
      if (answered.length > 0 && (response.status === 200 || response.status === 202)) {
        // A batch with some malformed requests: their errors join the SDK's answers in one array.
        reply.status(200).header('content-type', 'application/json');
        return reply.send(JSON.stringify([...(text === '' ? [] : [JSON.parse(text) as unknown].flat()), ...answered]));
      }
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
