import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyPost, type McpPost } from '../../src/mcp/classify.js';
import { INSTRUCTIONS } from '../../src/mcp/server.js';
import { toolCallResponse, toolResult, type ToolAnswer } from '../../src/mcp/tool-result.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { mcpPostDoc } from '../../src/http/openapi.operations.js';

/**
 * One pipeline for POST /mcp: a POST is classified once (src/mcp/classify.ts) and the route dispatches on that value;
 * every tools/call answer is written by one writer (src/mcp/tool-result.ts); the tool lists that documentation and
 * instructions give come from the tool definitions. test/mcp/tool-answers.test.ts compares the roads' bytes.
 */
const SRC = join(import.meta.dirname, '..', '..', 'src');
const source = (path: string) => readFileSync(join(SRC, path), 'utf8');

describe('the tools/call writer', () => {
  const answers: [string, ToolAnswer][] = [
    ['a result', { json: '{"data":{"sku":"RICE-LOOSE","price":"120.50","note":"ünï \\"q\\""}}' }],
    ['a tool error', { error: { error: { code: 'not_found', message: 'no such order', details: { reference: 'ORD-1' } } } }],
  ];
  it.each(answers)('%s: the direct response is the SDK result framed as the SDKs frame it, in both eras', (_label, answer) => {
    for (const era of ['legacy', 'modern'] as const) {
      for (const id of [7, 'req-1', 0]) {
        expect(toolCallResponse(id, answer, era)).toBe(JSON.stringify({ result: toolResult(answer, era), jsonrpc: '2.0', id }));
      }
    }
  });

  it('is the only source file that writes a tools/call result', () => {
    const writers = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => /structuredContent"?\s*:|resultType"?\s*:|'(structuredContent|resultType|isError)'|\{"result":/.test(source(file)));
    expect(writers).toEqual([join('mcp', 'tool-result.ts')]);
  });
});

describe('a POST classified once', () => {
  const request = () => new Request('http://localhost/mcp', { method: 'POST', headers: { 'content-type': 'application/json' } });
  const classify = (body: unknown, headers: Record<string, string> = {}, directToolCalls = true) =>
    classifyPost(structuredClone(body), headers, { directToolCalls, request });
  const road = (post: McpPost) =>
    post.road === 'refused' ? 'refused' : `${post.road} ${post.era}${post.road === 'sdk' && post.batch ? ' batch' : ''} cost ${post.cost}`;

  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_categories', arguments: {} } };
  const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const modernCall = { ...call, params: { ...call.params, _meta: envelope } };
  const modernHeaders = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'list_categories' };
  const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

  const CASES: [string, unknown, Record<string, string>, boolean, string][] = [
    ['a 2025-era tools/call', call, {}, true, 'direct legacy cost 1'],
    ['a 2026-07-28 tools/call', modernCall, modernHeaders, true, 'direct modern cost 1'],
    ['a 2025-era tools/call, direct calls off', call, {}, false, 'sdk legacy cost 1'],
    ['a 2026-07-28 tools/call, direct calls off', modernCall, modernHeaders, false, 'sdk modern cost 1'],
    ['a 2026-07-28 tools/call without its headers', modernCall, {}, true, 'sdk modern cost 1'],
    ['tools/list', list, {}, true, 'sdk legacy cost 0'],
    ['a batch', [list, call], { 'mcp-protocol-version': '2025-03-26' }, true, 'sdk legacy batch cost 2'],
    ['a batch where the version has none', [list, call], { 'mcp-protocol-version': '2025-06-18' }, true, 'refused'],
    ['an empty batch', [], { 'mcp-protocol-version': '2025-03-26' }, true, 'refused'],
    ['an id past 2^53', { ...call, id: 2 ** 60 }, {}, true, 'refused'],
  ];
  it.each(CASES)('%s', async (_label, body, headers, directToolCalls, expected) => {
    expect(road(await classify(body, headers, directToolCalls))).toBe(expected);
  });

  it('is where the route learns era, batch and road: the route calls no classifier of its own', () => {
    const route = source(join('mcp', 'mcp.routes.ts'));
    expect(route).toMatch(/classifyPost\(/);
    for (const own of [
      'batchRefusal(',
      'claimsModernRevision(',
      'directToolCall(',
      'directModernToolCall(',
      'isLegacyRequest(',
      'budgetCost(',
      'Array.isArray(body)',
    ]) {
      expect(route, own).not.toContain(own);
    }
  });
});

describe('tool lists derived from the tool definitions', () => {
  const names = TOOLS.map((t) => t.name);

  it('the instructions name the guided tools, and no tool by a literal of their own', () => {
    for (const tool of TOOLS.filter((t) => t.guide)) expect(INSTRUCTIONS).toContain(` ${tool.name}`);
    // server.ts writes no tool's name but place_order's, in the internal error's advice to retry it.
    const server = source(join('mcp', 'server.ts'));
    expect(names.filter((name) => server.includes(name))).toEqual(['place_order']);
  });

  it('the OpenAPI description of POST /mcp lists every tool, the older ones apart', () => {
    const description = mcpPostDoc(TOOLS).description;
    const current = TOOLS.filter((t) => !t.older).map((t) => t.name);
    const older = TOOLS.filter((t) => t.older).map((t) => t.name);
    expect(description).toContain(`Tools: ${current.join(', ')} (and the older ${older.join(', ')}). `);
    // The only tool name written in the operations file is its request example's.
    const operations = source(join('http', 'openapi.operations.ts'));
    expect(names.filter((name) => operations.includes(`'${name}'`))).toEqual(['browse_catalog']);
  });
});
