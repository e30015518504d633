import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AppError, errorBody, inputRefusedByDatabase, type ErrorBody } from '../contract/errors.js';
import { SERVER_INFO } from '../contract/mcp.js';
import { UcpError } from '../contract/ucp-wire.js';
import { toValidationError } from '../contract/validation.js';
import { compileSerializer } from '../contract/serializer.js';
import { contextFromMeta, inSpan, markFailed } from '../lib/tracing.js';
import { portableInputSchema, portableOutputSchema } from './portable.js';
import { TOOLS, type ToolContext, type ToolDefinition } from './tools.js';
import { toolResult, type ToolAnswer } from './tool-result.js';

/** The tools' guides (tools.ts `guide`), in step order, as one sentence: "A with x, B with y, and C with z." */
function walkthrough(tools: readonly ToolDefinition[]): string {
  const parts = tools
    .flatMap((t) => (t.guide ? [{ step: t.guide.step, text: t.guide.text.replace('{name}', t.name) }] : []))
    .sort((a, b) => a.step - b.step)
    .map((g) => g.text);
  const listed = parts.length > 1 ? `${parts.slice(0, -1).join(', ')}, and ${parts[parts.length - 1]}` : (parts[0] ?? '');
  return `${listed.charAt(0).toUpperCase()}${listed.slice(1)}. `;
}

export const INSTRUCTIONS =
  "Tools for one company's catalogue, orders and customers (India; prices in INR including GST). " +
  walkthrough(TOOLS) +
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

/**
 * One tools/call answered, result or tool error, before any era's framing: the only source of a tools/call answer.
 * The SDK handlers (`createMcpServer`, modern.ts) and the direct path (mcp.routes.ts) frame it with ./tool-result.ts.
 */
export async function answerToolCall(
  ctx: ToolContext,
  params: { name: string; arguments?: unknown; _meta?: unknown },
  observe: ToolObserver,
): Promise<ToolAnswer> {
  return callTool(ctx, params.name, params.arguments, observe, params._meta);
}

function errorResult(body: ErrorBody): ToolAnswer {
  return { error: body };
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
async function callTool(ctx: ToolContext, name: string, args: unknown, observe: ToolObserver, meta?: unknown): Promise<ToolAnswer> {
  const tool = TOOLS_BY_NAME.get(name);
  const known = tool ? name : 'unknown';
  const attributes = { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': known };
  return inSpan(
    `tools/call ${known}`,
    attributes,
    async (span) => {
      const answer = await runTool(ctx, tool, name, args, observe);
      const outcome = 'error' in answer ? answer.error.error.code : 'ok';
      if ('error' in answer) markFailed(span, outcome);
      observe.called?.(known, outcome);
      return answer;
    },
    () => 'internal',
    contextFromMeta(meta),
  );
}

async function runTool(ctx: ToolContext, tool: ToolDefinition | undefined, name: string, args: unknown, observe: ToolObserver): Promise<ToolAnswer> {
  if (!tool) {
    return errorResult(errorBody('not_found', `unknown tool "${name}"; tools/list names them: ${TOOLS.map((t) => t.name).join(', ')}`));
  }
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) return errorResult(toValidationError(parsed.error).toBody());
  try {
    const result = await tool.run(ctx, parsed.data);
    return { json: compileSerializer(tool.output)(result) };
  } catch (err) {
    if (err instanceof AppError) return errorResult(err.toBody());
    if (err instanceof UcpError) return errorResult(err.toErrorBody());
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
  server.setRequestHandler(CallToolRequestSchema, async (req) => toolResult(await answerToolCall(ctx, req.params, observe), 'legacy'));
  return server;
}
