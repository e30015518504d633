import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadMcpTools } from '@langchain/mcp-adapters';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { AIMessage, type ToolMessage } from '@langchain/core/messages';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { expectRestShaped, openShop, REQUIRED, requiredOf, TOOL_NAMES, toolCalls, type Shop, type ToolCall } from './client-calls.js';

/**
 * LangChain's MCP adapters (`loadMcpTools` over the official SDK client) run by a LangGraph `ToolNode`, as an agent
 * graph runs them. The adapters validate a call against the converted schema before sending it, so a
 * schema that marks an optional parameter required makes them refuse a call that leaves it out, and one they convert
 * to a plain object refuses null there. Every tool is called with only the required arguments and again with nulls
 * (`delivery_address: null` too), each call reaching the service and each answer the REST one.
 */
let shop: Shop;
let client: Client;
let converted: Map<string, DynamicStructuredTool>;
let node: ToolNode;
/** The bodies of the tools/call requests that reached the service. */
const sent: string[] = [];

beforeAll(async () => {
  shop = await openShop();
  const recording: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"tools/call"')) sent.push(init.body);
    return fetch(input, init);
  };
  client = new Client({ name: 'vitest-langchain', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(shop.url), { requestInit: { headers: { 'x-api-key': shop.key } }, fetch: recording }));
  const tools = await loadMcpTools('commerce', client);
  converted = new Map(tools.map((t) => [t.name, t]));
  node = new ToolNode(tools);
});
afterAll(async () => {
  await client?.close();
  await shop?.close();
});

let callId = 0;
/** One tool call through the ToolNode, as a model's AIMessage asking for it. */
async function run(call: ToolCall): Promise<ToolMessage> {
  const id = `call_${++callId}`;
  const out = (await node.invoke({
    messages: [new AIMessage({ content: '', tool_calls: [{ id, name: call.tool, args: call.args, type: 'tool_call' }] })],
  })) as {
    messages: ToolMessage[];
  };
  expect(out.messages).toHaveLength(1);
  expect(out.messages[0].tool_call_id).toBe(id);
  return out.messages[0];
}

/** The answer as the model reads it: the ToolMessage holds the tool's text block (and its structuredContent). */
function answerOf(message: ToolMessage, label: string): unknown {
  expect(message.status, `${label}: ${message.text}`).toBe('success');
  const block = JSON.parse(message.text) as { type: string; text: string; structuredContent?: unknown };
  expect(block.type, label).toBe('text');
  const answer: unknown = JSON.parse(block.text);
  expect(block.structuredContent, label).toEqual(answer);
  return answer;
}

describe("LangChain's MCP adapters in a LangGraph ToolNode", () => {
  it('converts every tool keeping what the contract requires, and nothing more', () => {
    expect([...converted.keys()].sort()).toEqual(TOOL_NAMES);
    expect(requiredOf([...converted].map(([name, tool]) => [name, tool.schema]))).toEqual(REQUIRED);
  });

  it('converts the nullable delivery_address to a property that takes null, its fields named in its description', () => {
    // 1.1.4 drops anyOf and makes a property holding a visible object branch a plain object; ours holds none visibly
    const address = (converted.get('place_order')!.schema as { properties: Record<string, { type?: unknown; description?: string }> }).properties
      .delivery_address;
    expect(address.type).toBeUndefined();
    expect(address.description).toMatch(/line1 .* city .* pincode .* required/);
  });

  it.each([...toolCalls('required', 'langchain'), ...toolCalls('nulls', 'langchain')].map((c) => [c.label, c] as const))('%s', async (_label, call) => {
    const before = sent.length;
    const answer = answerOf(await run(call), call.label);
    expect(sent.slice(before).map((body) => (JSON.parse(body) as { params: { name: string } }).params.name)).toEqual([call.tool]);
    await expectRestShaped(shop, call, answer);
  });
});
