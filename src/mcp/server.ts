import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AppError, errorBody, inputRefusedByDatabase, type ErrorBody } from '../contract/errors.js';
import { toValidationError } from '../contract/validation.js';
import { compileSerializer } from '../contract/serializer.js';
import { contextFromMeta, inSpan, markFailed } from '../lib/tracing.js';
import { portableInputSchema, portableOutputSchema } from './portable.js';
import { TOOLS, type ToolContext, type ToolDefinition } from './tools.js';

export const SERVER_INFO = { name: 'commerce-api', title: 'Catalogue, Orders and Customers', version: '1.3.0' };

export const INSTRUCTIONS =
  "Tools for one company's catalogue, orders and customers (India; prices in INR including GST). " +
  'Find products with browse_catalog, order a variant by its sku with place_order (a new external_reference per new order, the same one when retrying), ' +
  "look orders up with get_order (pass the customer's phone when answering a customer), and customers with find_customer. " +
  "Respect messaging_opted_out. Every result is JSON in the REST API's shape; errors come as isError with { error: { code, message, details } }.";

/** tools/list, computed once: JSON Schemas come from the same zod schemas that validate the calls (inputs in their portable form, ./portable.ts). */
export const TOOL_LIST: Tool[] = TOOLS.map((t) => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: portableInputSchema(z.toJSONSchema(t.input, { io: 'input', unrepresentable: 'any' })) as Tool['inputSchema'],
  outputSchema: portableOutputSchema(z.toJSONSchema(t.output, { io: 'output', unrepresentable: 'any' })) as Tool['outputSchema'],
  annotations: t.annotations,
}));
const TOOLS_BY_NAME = new Map<string, ToolDefinition>(TOOLS.map((t) => [t.name, t]));

/** The text of each successful result: the compiled serialiser's JSON of its structuredContent (resultJson). */
const WRITTEN = new WeakMap<CallToolResult, string>();

/** Which revision a request speaks: the 2025 era (2024-11-05 … 2025-11-25) or revision 2026-07-28. */
export type Era = 'legacy' | 'modern';

/**
 * What revision 2026-07-28 adds to a result: the server's identity in `_meta` and `resultType` "complete". The v2 SDK
 * keeps both when a handler returns them, so its answer and the direct one take them from here.
 */
const MODERN_META = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } as const;
const MODERN_HEAD = `{"_meta":${JSON.stringify(MODERN_META)},`;
const MODERN_TAIL = ',"resultType":"complete"}';

/**
 * One tools/call answered, result or tool error, in its era's form: the only source of a tools/call result. The SDK
 * handlers (`createMcpServer`, modern.ts) return it for the SDK to frame, and the direct path (mcp.routes.ts) writes it
 * with `toolCallResponse`; test/mcp/direct-tool-calls.test.ts holds the two to the same bytes.
 */
export async function answerToolCall(
  ctx: ToolContext,
  params: { name: string; arguments?: unknown; _meta?: unknown },
  observe: ToolObserver,
  era: Era,
): Promise<CallToolResult> {
  const result = await callTool(ctx, params.name, params.arguments, observe, params._meta);
  if (era === 'legacy') return result;
  // Members in the order the SDK's result schema writes them, so both paths answer the same bytes.
  const modern: CallToolResult = { _meta: MODERN_META, ...result, resultType: 'complete' };
  const text = WRITTEN.get(result);
  if (text !== undefined) WRITTEN.set(modern, text);
  return modern;
}

/**
 * The JSON-RPC response to a tools/call, as the SDK's transport writes it (same members, same order). A successful
 * result's structuredContent is written as its text already is (the same allowlisting serialiser), so the page is
 * serialised once, not again by `JSON.stringify`.
 */
export function toolCallResponse(id: string | number, result: CallToolResult): string {
  return `{"result":${resultJson(result)},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

function resultJson(result: CallToolResult): string {
  const text = WRITTEN.get(result);
  if (text === undefined) return JSON.stringify(result);
  const written = `"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}`;
  return 'resultType' in result ? MODERN_HEAD + written + MODERN_TAIL : `{${written}}`;
}

function errorResult(body: ErrorBody): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}

/** What the door learns of each tool call: a failure to log, and every call's outcome (metrics). */
export interface ToolObserver {
  failed(err: unknown, tool: string): void;
  /** outcome: `ok`, or the error code of the refusal; tool: a known tool's name or `unknown` (bounded) */
  called?(tool: string, outcome: string): void;
}

/**
 * Runs one tool call: validate with the REST schema, call the service, answer in the REST shape.
 * The call runs in a span `tools/call <tool>` (MCP semantic conventions), whose parent is the W3C trace
 * context in the request's `params._meta` (`traceparent`, `tracestate`) when the client sends one, else the HTTP span.
 */
async function callTool(ctx: ToolContext, name: string, args: unknown, observe: ToolObserver, meta?: unknown): Promise<CallToolResult> {
  const tool = TOOLS_BY_NAME.get(name);
  const known = tool ? name : 'unknown';
  const attributes = { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': known };
  return inSpan(
    `tools/call ${known}`,
    attributes,
    async (span) => {
      const result = await runTool(ctx, tool, name, args, observe);
      const outcome = result.isError ? errorCodeOf(result) : 'ok';
      if (result.isError) markFailed(span, outcome);
      observe.called?.(known, outcome);
      return result;
    },
    () => 'internal',
    contextFromMeta(meta),
  );
}

const errorCodeOf = (result: CallToolResult) => {
  const [first] = result.content as { type: string; text?: string }[];
  try {
    return (JSON.parse(first?.text ?? '{}') as ErrorBody).error?.code ?? 'error';
  } catch {
    return 'error';
  }
};

async function runTool(ctx: ToolContext, tool: ToolDefinition | undefined, name: string, args: unknown, observe: ToolObserver): Promise<CallToolResult> {
  if (!tool) {
    return errorResult(errorBody('not_found', `unknown tool "${name}"; tools/list names them: ${TOOLS.map((t) => t.name).join(', ')}`));
  }
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) return errorResult(toValidationError(parsed.error).toBody());
  try {
    const result = await tool.run(ctx, parsed.data);
    const text = compileSerializer(tool.output)(result);
    const answer: CallToolResult = { content: [{ type: 'text', text }], structuredContent: result };
    WRITTEN.set(answer, text);
    return answer;
  } catch (err) {
    if (err instanceof AppError) return errorResult(err.toBody());
    const refused = inputRefusedByDatabase(err);
    if (refused) return errorResult(refused.toBody());
    observe.failed(err, name);
    return errorResult(errorBody('internal', 'internal error; it is safe to retry (place_order with the same external_reference)'));
  }
}

/**
 * The JSON Schema validator a server uses for elicitation (which these tools never ask for), shared: the SDK otherwise
 * builds a new Ajv for every server, and a server lives for one request (about 7% of an MCP request's CPU).
 */
const VALIDATOR = new AjvJsonSchemaValidator();

/**
 * The legacy-era (2024-11-05 … 2025-11-25) server for one request (SDK 1.x: a stateless transport and its server
 * serve one request). Revision 2026-07-28 is served by `modern.ts` with the same tool list and `callTool`.
 * Only two handlers are attached; the tool list itself is shared.
 */
export function createMcpServer(ctx: ToolContext, observe: ToolObserver): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator: VALIDATOR });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOL_LIST }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => answerToolCall(ctx, req.params, observe, 'legacy'));
  return server;
}
