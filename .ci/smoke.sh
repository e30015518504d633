#!/usr/bin/env bash
# Starts the service as a new user would (no DATABASE_URL: embedded PGlite in a fresh folder),
# waits for /readyz, makes an authenticated request with the printed demo key, then stops it.
set -euo pipefail
data=$(mktemp -d)
log=$(mktemp)
source "$(dirname "$0")/free-port.sh"
port=${SMOKE_PORT:-$(free_port)}
DATA_DIR="$data" PORT="$port" setsid npm start >"$log" 2>&1 &
pid=$!
cleanup() { kill -- -"$pid" 2>/dev/null || true; rm -rf "$data"; }  # the whole process group
trap cleanup EXIT

for _ in $(seq 1 120); do
  grep -q 'ready on' "$log" && break
  kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "smoke: server exited early"; exit 1; }
  sleep 1
done
grep -q 'ready on' "$log" || { cat "$log"; echo "smoke: server did not start"; exit 1; }
base=$(grep -o 'ready on [^ ]*' "$log" | head -1 | cut -d' ' -f3)
key=$(grep -o 'cok_[A-Za-z0-9]*_[A-Za-z0-9]*' "$log" | head -1)
[ -n "$key" ] || { cat "$log"; echo "smoke: no demo key printed"; exit 1; }
echo "smoke: base $base, key ${key:0:16}…"

code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")
[ "$code" = 200 ] || { echo "smoke: /readyz answered $code"; exit 1; }
body=$(curl -s -w '\n%{http_code}' -H "X-API-KEY: $key" "$base/catalog/products?limit=2")
code=$(tail -n1 <<<"$body")
[ "$code" = 200 ] || { echo "$body"; echo "smoke: authenticated browse answered $code"; exit 1; }
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/catalog/products")
[ "$code" = 401 ] || { echo "smoke: unauthenticated browse answered $code"; exit 1; }
grep -q "$key" <(grep -v 'shown only this once' "$log" | grep -v 'Try: curl' | grep -v "^    $key") && { echo "smoke: key found in logs"; exit 1; }

if [ -f .ci/smoke-mcp.sh ]; then SMOKE_BASE="$base" SMOKE_KEY="$key" bash .ci/smoke-mcp.sh; fi

# SIGTERM the service process itself (npm and tsx sit between us and it; npm reports 143 for its own signal).
server_pid=$(grep -o '"pid":[0-9]*' "$log" | head -1 | cut -d: -f2)
kill -TERM "$server_pid"
for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$pid" 2>/dev/null; then echo "smoke: did not stop on SIGTERM"; exit 1; fi
wait "$pid" && rc=0 || rc=$?
[ "$rc" = 0 ] || { tail -5 "$log"; echo "smoke: exit code $rc after SIGTERM"; exit 1; }
grep -q '"msg":"stopped"' "$log" || { tail -5 "$log"; echo "smoke: no clean shutdown logged"; exit 1; }
echo "smoke: passed (started, ready, authenticated request, clean stop)"
