#!/usr/bin/env bash
# A second real MCP client against the running service: the MCP Inspector CLI (tools/list and one call).
set -euo pipefail
: "${SMOKE_BASE:?}" "${SMOKE_KEY:?}"
export HOME
HOME=$(mktemp -d) # the inspector writes a catalog under HOME
inspector() {
  timeout 300 npx -y @modelcontextprotocol/inspector@2.12.0 --cli "$SMOKE_BASE/mcp" --transport http \
    --header "Authorization: Bearer $SMOKE_KEY" "$@" 2>/dev/null
}
tools=$(inspector --method tools/list)
for name in browse_catalog get_product_details list_categories find_customer get_order place_order search_products get_product; do
  grep -q "\"name\": \"$name\"" <<<"$tools" || { echo "$tools" | head -40; echo "smoke-mcp: tools/list lacks $name"; exit 1; }
done
call=$(inspector --method tools/call --tool-name browse_catalog --tool-arg limit=2)
grep -q '"structuredContent"' <<<"$call" && grep -q '"has_more"' <<<"$call" || { echo "$call" | head -40; echo "smoke-mcp: browse_catalog call failed"; exit 1; }
if grep -q '"isError": true' <<<"$call"; then echo "$call" | head -40; echo "smoke-mcp: browse_catalog returned an error"; exit 1; fi
echo "smoke-mcp: MCP Inspector CLI listed 8 tools and called browse_catalog"
