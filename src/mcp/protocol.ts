import {
  CallToolRequestSchema,
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { MAX_BATCH_MESSAGES, MCP_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION, NEWEST_PROTOCOL_VERSION, VERSIONS_WITH_BATCHES } from '../contract/mcp.js';
import { fieldPath } from '../contract/validation.js';

/**
 * JSON-RPC policy in front of the SDK's transport: which protocol versions we negotiate, which bodies may be
 * batches and how large, what a POST spends of the key's budget, and readable invalid-params errors.
 */

/** Which revision a request speaks: the 2025 era (2024-11-05 … 2025-11-25) or revision 2026-07-28. */
export type Era = 'legacy' | 'modern';

export const JSONRPC_INVALID_REQUEST = -32600;
export const JSONRPC_INVALID_PARAMS = -32602;

export interface JsonRpcError {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

export const rpcError = (id: string | number | null, code: number, message: string): JsonRpcError => ({ jsonrpc: '2.0', id, error: { code, message } });

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isOurVersion = (v: unknown): v is string => (MCP_PROTOCOL_VERSIONS as readonly unknown[]).includes(v);

/**
 * The protocol version a POST speaks: what its `initialize` asks for (answered with the newest when it is not
 * ours), else the `MCP-Protocol-Version` header, else 2025-03-26 (the SDK's reading of an absent header).
 */
export function protocolVersionOf(body: unknown, header: string | undefined): string {
  const init = (Array.isArray(body) ? body : [body]).find((m) => isObject(m) && m.method === 'initialize') as Json | undefined;
  if (init) {
    const asked = isObject(init.params) ? init.params.protocolVersion : undefined;
    return isOurVersion(asked) ? asked : NEWEST_PROTOCOL_VERSION;
  }
  return header ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
}

/**
 * Whether a POST claims revision 2026-07-28: its `MCP-Protocol-Version` header names it, or a message carries the
 * per-request `_meta` envelope. Only such a POST goes to the modern leg (the SDK's classifier then decides); a
 * 2025-era message with malformed params stays with the legacy leg and its readable -32602.
 */
export function claimsModernRevision(body: unknown, header: string | undefined): boolean {
  if (header === MODERN_PROTOCOL_VERSION) return true;
  return (Array.isArray(body) ? body : [body]).some(
    (m) => isObject(m) && isObject(m.params) && isObject(m.params._meta) && 'io.modelcontextprotocol/protocolVersion' in m.params._meta,
  );
}

/** Why this body is refused whole (a batch where the version has none, an empty or oversized batch), or undefined. */
export function batchRefusal(body: unknown, version: string): string | undefined {
  if (!Array.isArray(body)) return undefined;
  if (!VERSIONS_WITH_BATCHES.includes(version)) {
    return `JSON-RPC batches (array bodies) are not part of MCP protocol version ${version}; protocol 2025-06-18 removed them: send one message per POST`;
  }
  if (body.length === 0) return 'an empty JSON-RPC batch is not a request; send at least one message';
  if (body.length > MAX_BATCH_MESSAGES) {
    return `a JSON-RPC batch may hold at most ${MAX_BATCH_MESSAGES} messages; this one holds ${body.length}: send the rest in further POSTs`;
  }
  return undefined;
}

/**
 * Requests of the key's budget this POST spends: one message spends one when it is a `tools/call` (initialize,
 * tools/list, ping and notifications are protocol chatter); every message of a batch spends one, whatever it is.
 */
export function budgetCost(body: unknown): number {
  if (Array.isArray(body)) return body.length;
  return isObject(body) && body.method === 'tools/call' ? 1 : 0;
}

/** Initialize asking for a version we do not offer is answered with our newest (the SDK would also accept 2024-10-07). */
export function capProtocolVersion(messages: unknown[]): void {
  for (const m of messages) {
    if (isObject(m) && m.method === 'initialize' && isObject(m.params) && !isOurVersion(m.params.protocolVersion)) {
      m.params.protocolVersion = NEWEST_PROTOCOL_VERSION;
    }
  }
}

const REQUEST_SCHEMAS: Record<string, { safeParse(v: unknown): { success: boolean; error?: { issues: ReadonlyArray<Issue> } } }> = {
  initialize: InitializeRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  ping: PingRequestSchema,
};

interface Issue {
  code: string;
  path: ReadonlyArray<PropertyKey>;
  message: string;
  expected?: unknown;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

const EXPECTED: Record<string, string> = { object: 'a JSON object', record: 'a JSON object', string: 'a string', number: 'a number', boolean: 'true or false' };

function describeIssue(message: Json, issue: Issue): string {
  const path = fieldPath(issue.path);
  let value: unknown = message;
  for (const seg of issue.path) value = isObject(value) || Array.isArray(value) ? (value as Record<PropertyKey, unknown>)[seg] : undefined;
  if (issue.code !== 'invalid_type') return `${path}: ${issue.message}`;
  const expected = EXPECTED[String(issue.expected)] ?? String(issue.expected);
  if (path === 'params.arguments') return `params.arguments must be a JSON object of the tool's arguments, e.g. {"search": "shirt"}, not ${kindOf(value)}`;
  return value === undefined ? `${path} is required (${expected})` : `${path} must be ${expected}, not ${kindOf(value)}`;
}

/**
 * A request id we can answer: a string, or an integer JSON numbers keep exactly (|id| ≤ 2^53 − 1). A larger number
 * reaches us already rounded (`12345678901234567890123` parses as 1.2345678901234568e22), so an answer would carry
 * another id than the one sent; MCP ids are strings or integers, never null or fractional.
 */
const isRequestId = (id: unknown): id is string | number => typeof id === 'string' || Number.isSafeInteger(id);

/**
 * Run on every message of every POST before the era or the path is chosen, so the direct answer and the SDK's start
 * from the same message: `params: null`, and a tools/call's `arguments: null`, count as not given, in both eras (the
 * spec lets null stand for an absent optional member; the 2026-07-28 SDK would answer a validator dump).
 */
export function normaliseNulls(body: unknown): void {
  for (const m of Array.isArray(body) ? body : [body]) {
    if (!isObject(m)) continue;
    if (m.params === null) delete m.params;
    if (m.method === 'tools/call' && isObject(m.params) && m.params.arguments === null) delete m.params.arguments;
  }
}

/**
 * The refusal (-32600, id null: the id could not be read back) of a request whose id is no string or exact integer, or
 * undefined. Both SDKs refuse such ids too, each in its own words (-32700 with id null, -32600 with the rounded id).
 */
export function invalidRequestId(message: unknown): JsonRpcError | undefined {
  if (!isObject(message) || typeof message.method !== 'string' || !('id' in message) || isRequestId(message.id)) return undefined;
  return rpcError(
    null,
    JSONRPC_INVALID_REQUEST,
    `Invalid Request: the id of a ${message.method} request must be a string or an integer from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER} (a larger number cannot be sent back exactly; use a string), not ${typeof message.id === 'number' ? String(message.id) : kindOf(message.id)}`,
  );
}

/**
 * The invalid-params answer (-32602, readable) for a request whose params have the wrong JSON type, or
 * undefined when the SDK may take it. Without this the SDK answers `params: []` as a parse error (-32700) and
 * `arguments: []` as an internal error (-32603) whose message is a validator dump.
 */
export function invalidParams(message: unknown): JsonRpcError | undefined {
  if (!isObject(message) || typeof message.method !== 'string') return undefined;
  const method = message.method;
  if (!isRequestId(message.id)) return undefined; // a notification (or an id `invalidRequestId` refuses): the SDK answers
  const params = message.params;
  const invalid = (text: string) => rpcError(message.id as string | number, JSONRPC_INVALID_PARAMS, `Invalid params for ${method}: ${text}`);
  if (params !== undefined && !isObject(params)) return invalid(`params must be a JSON object, not ${kindOf(params)}`);
  const schema = REQUEST_SCHEMAS[message.method];
  if (!schema) return undefined;
  const parsed = schema.safeParse({ method: message.method, params });
  if (parsed.success) return undefined;
  const issues = parsed.error?.issues ?? [];
  return invalid(
    issues
      .slice(0, 3)
      .map((i) => describeIssue(message, i))
      .join('; ') || 'params do not match the method',
  );
}

/** A single `tools/call` that the SDK would take as it is, picked apart; undefined for anything else. */
export interface DirectToolCall {
  id: string | number;
  params: { name: string; arguments?: unknown; _meta?: unknown };
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/** The standard headers of a revision 2026-07-28 POST (SEP-2243), as they came. */
export interface ModernHeaders {
  version: string | undefined;
  method: string | undefined;
  name: string | undefined;
  /** any `Mcp-Param-*` header present (the SDK checks those against the tool's parameters) */
  params: boolean;
}

/** The standard headers of a 2026-07-28 POST from the request's headers (Node's: lower-case names). */
export function modernHeadersOf(headers: Record<string, string | string[] | undefined>): ModernHeaders {
  const one = (name: string) => {
    const value = headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  return {
    version: one('mcp-protocol-version'),
    method: one('mcp-method'),
    name: one('mcp-name'),
    params: Object.keys(headers).some((h) => h.startsWith('mcp-param-')),
  };
}

const MODERN_META_KEYS = new Set(['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientCapabilities', 'traceparent', 'tracestate']);
const CALL_PARAM_KEYS = new Set(['name', 'arguments', '_meta']);

/**
 * The body as a revision 2026-07-28 `tools/call` the v2 SDK's handler would hand to our server unchanged, picked
 * apart; undefined for anything else, which the SDK answers. Taken only when everything the SDK checks is plainly
 * right: the version, method and name headers present and equal to the body's; the `_meta` envelope naming this
 * revision with client capabilities that are objects of objects, and nothing but a trace context besides; no
 * `Mcp-Param-*` header; and the same request shape as a 2025-era direct call (`directToolCall`).
 */
export function directModernToolCall(body: unknown, headers: ModernHeaders): DirectToolCall | undefined {
  if (headers.version !== MODERN_PROTOCOL_VERSION || headers.method !== 'tools/call' || headers.params) return undefined;
  const call = directToolCall(body, undefined);
  if (!call || headers.name !== call.params.name) return undefined;
  if (!Object.keys(call.params).every((k) => CALL_PARAM_KEYS.has(k))) return undefined;
  const meta = call.params._meta;
  if (!isObject(meta) || !Object.keys(meta).every((k) => MODERN_META_KEYS.has(k))) return undefined;
  if (meta['io.modelcontextprotocol/protocolVersion'] !== MODERN_PROTOCOL_VERSION) return undefined;
  const capabilities = meta['io.modelcontextprotocol/clientCapabilities'];
  if (!isObject(capabilities) || !Object.values(capabilities).every(isObject)) return undefined;
  return call;
}

/**
 * The body as a `tools/call` the SDK's transport and server would hand to our handler unchanged: one JSON-RPC request
 * (no batch, no extra members: the SDK's request schema is strict), an id `isRequestId` takes, params the SDK's own
 * schema accepts (`invalidParams` runs it), and a `MCP-Protocol-Version` header that is absent or one we negotiate.
 */
export function directToolCall(body: unknown, header: string | undefined): DirectToolCall | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  if (header !== undefined && !isOurVersion(header)) return undefined;
  const { id, params } = body;
  if (!isRequestId(id)) return undefined;
  if (!Object.keys(body).every((k) => REQUEST_KEYS.has(k)) || !isObject(params) || typeof params.name !== 'string') return undefined;
  if (invalidParams(body)) return undefined;
  return { id, params: params as DirectToolCall['params'] };
}
