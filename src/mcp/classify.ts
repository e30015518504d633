import { isLegacyRequest } from '@modelcontextprotocol/server';
import {
  batchRefusal,
  budgetCost,
  claimsModernRevision,
  directModernToolCall,
  directToolCall,
  invalidRequestId,
  modernHeadersOf,
  normaliseNulls,
  JSONRPC_INVALID_REQUEST,
  protocolVersionOf,
  rpcError,
  type DirectToolCall,
  type Era,
  type JsonRpcError,
} from './protocol.js';

/**
 * What a POST to the MCP endpoint is, decided once, before any work: the route (mcp.routes.ts) dispatches on `road`.
 * - refused: answered 400 with this JSON-RPC error before any work or budget (a batch where the version has none, an
 *   empty or oversized batch, an id that cannot be sent back exactly);
 * - direct: a single tools/call the SDK would hand to the tool unchanged, answered by our writer (./tool-result.ts)
 *   without an SDK server, a transport and web Request/Response objects;
 * - sdk: everything else, served by the era's SDK: the v2 handler for revision 2026-07-28 (./modern.ts), the v1
 *   server for the 2025 era (./server.ts), whose tools/call answers come from the same writer.
 * `cost` is what the POST spends of the key's budget (./protocol.ts `budgetCost`).
 */
export type McpPost =
  | { road: 'refused'; answer: JsonRpcError }
  | { road: 'direct'; era: Era; cost: number; call: DirectToolCall }
  | { road: 'sdk'; era: Era; cost: number; batch: boolean; request: Request };

export interface ClassifyOptions {
  /** whether single tools/calls take the direct road (MCP_DIRECT_TOOL_CALLS; off, every POST goes to the SDKs) */
  directToolCalls: boolean;
  /** the web Request the SDKs take (method and headers), built only for the sdk road */
  request: () => Request;
}

/**
 * Classifies a parsed POST body. Reads nulls as absent in place (`normaliseNulls`), so the direct road and the SDKs'
 * start from the same message. Revision 2026-07-28 is told by its `_meta` envelope (or its header), confirmed by the
 * v2 SDK's own classifier; everything else is the 2025 era.
 */
export async function classifyPost(body: unknown, headers: Record<string, string | string[] | undefined>, options: ClassifyOptions): Promise<McpPost> {
  const rawHeader = headers['mcp-protocol-version'];
  const header = typeof rawHeader === 'string' ? rawHeader : undefined;
  const refusal = batchRefusal(body, protocolVersionOf(body, header));
  // The SDK's own form for transport refusals (400, JSON-RPC error, id null).
  if (refusal) return { road: 'refused', answer: rpcError(null, JSONRPC_INVALID_REQUEST, `Invalid Request: ${refusal}`) };
  normaliseNulls(body);
  const batch = Array.isArray(body);
  const badId = batch ? undefined : invalidRequestId(body);
  if (badId) return { road: 'refused', answer: badId };
  const cost = budgetCost(body);

  const modernClaimed = claimsModernRevision(body, header);
  if (options.directToolCalls) {
    const call = modernClaimed ? directModernToolCall(body, modernHeadersOf(headers)) : directToolCall(body, header);
    if (call) return { road: 'direct', era: modernClaimed ? 'modern' : 'legacy', cost, call };
  }
  const request = options.request();
  const era = modernClaimed && !(await isLegacyRequest(request, body)) ? 'modern' : 'legacy';
  return { road: 'sdk', era, cost, batch, request };
}
