import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorBody } from '../contract/errors.js';
import { SERVER_INFO } from '../contract/mcp.js';
import type { Era } from './protocol.js';

/**
 * The one writer of a tools/call answer, for both eras and both roads: the SDK handlers (server.ts, modern.ts) return
 * `toolResult` for their SDK to frame, and the direct path (mcp.routes.ts) sends `toolCallResponse`, written from the
 * same members in the same order. What an SDK writes differently after an upgrade is mirrored here, once;
 * test/mcp/tool-answers.test.ts holds every tool's answer on both roads to the same bytes.
 */

/**
 * What a tool call came to, before any era's framing: the REST response body as the tool's allowlisting serialiser
 * wrote it (once, for the text and for structuredContent alike), or the REST error object.
 */
export type ToolAnswer = { json: string } | { error: ErrorBody };

/** What revision 2026-07-28 adds to every result: the server's identity (the v2 SDK leaves a handler's own in place). */
const MODERN_META = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } as const;

/** One member of a result: a value, or JSON already written (structuredContent, by the tool's serialiser). */
type Key = '_meta' | 'content' | 'structuredContent' | 'isError' | 'resultType';
type Member = { key: Key; value: unknown } | { key: Key; written: string };

/** The result's members in the order the SDKs' result schemas write them (`_meta`, content, structuredContent, isError, resultType). */
function members(answer: ToolAnswer, era: Era): Member[] {
  const text = 'json' in answer ? answer.json : JSON.stringify(answer.error);
  const list: Member[] = [];
  if (era === 'modern') list.push({ key: '_meta', value: MODERN_META });
  list.push({ key: 'content', value: [{ type: 'text', text }] });
  if ('json' in answer) list.push({ key: 'structuredContent', written: answer.json });
  else list.push({ key: 'isError', value: true });
  if (era === 'modern') list.push({ key: 'resultType', value: 'complete' });
  return list;
}

/**
 * The result for an SDK handler to return. Its structuredContent is read back from the serialiser's JSON, not the
 * service's object, so the SDK writes the allowlisted members in the schema's order, as the direct path does.
 */
export function toolResult(answer: ToolAnswer, era: Era): CallToolResult {
  const result: Record<string, unknown> = {};
  for (const m of members(answer, era)) result[m.key] = 'written' in m ? JSON.parse(m.written) : m.value;
  return result as CallToolResult;
}

/** The JSON-RPC response to a tools/call as the SDKs' transports write it (`result`, `jsonrpc`, `id`), for the direct path. */
export function toolCallResponse(id: string | number, answer: ToolAnswer, era: Era): string {
  const result = members(answer, era).map((m) => `${JSON.stringify(m.key)}:${'written' in m ? m.written : JSON.stringify(m.value)}`);
  return `{"result":{${result.join(',')}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}
