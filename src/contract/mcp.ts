// What the MCP endpoint promises on the wire; the OpenAPI description and the JSON-RPC policy (src/mcp/protocol.ts) read it.

/** The stateless revision (no handshake; `server/discover` and a `_meta` envelope on every request). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** Protocol versions we negotiate with `initialize`, newest first; an `initialize` asking for anything else is answered with the newest. */
export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const NEWEST_PROTOCOL_VERSION = MCP_PROTOCOL_VERSIONS[0];

/** Every revision served on POST {base}/mcp, newest first (what `server/discover` lists). */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION, ...MCP_PROTOCOL_VERSIONS];

/** JSON-RPC batches exist in these versions only (2025-06-18 removed them). */
export const VERSIONS_WITH_BATCHES: readonly string[] = ['2025-03-26', '2024-11-05'];
/** Most messages one batch may hold (the SDK alone would take 100). */
export const MAX_BATCH_MESSAGES = 10;

/**
 * Cache hints of revision 2026-07-28. The tool list and `server/discover` hold no company's data and change only
 * with a deployment: an hour, shareable. Tool call results (live stock, a company's orders) carry none: the
 * revision makes only list and discover results cacheable, so a client never keeps them.
 */
export const MCP_LIST_CACHE_TTL_MS = 60 * 60 * 1000;

/** Who answers: `initialize` and `server/discover` name it, and every 2026-07-28 result carries it in `_meta`. */
export const SERVER_INFO = { name: 'commerce-api', title: 'Catalogue, Orders and Customers', version: '1.3.0' };
