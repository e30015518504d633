// What the MCP endpoint promises on the wire; the OpenAPI description and the JSON-RPC policy (src/mcp/protocol.ts) read it.

/** Protocol versions we negotiate, newest first; an `initialize` asking for anything else is answered with the newest. */
export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const NEWEST_PROTOCOL_VERSION = MCP_PROTOCOL_VERSIONS[0];

/** JSON-RPC batches exist in these versions only (2025-06-18 removed them). */
export const VERSIONS_WITH_BATCHES: readonly string[] = ['2025-03-26', '2024-11-05'];
/** Most messages one batch may hold (the SDK alone would take 100). */
export const MAX_BATCH_MESSAGES = 10;
