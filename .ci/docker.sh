#!/usr/bin/env bash
# The image, proven: builds the project's Dockerfile unchanged (on a stand-in base made by
# scripts/docker-base.sh when no registry can be reached), reports its size, checks docker-compose.yml with
# `docker-compose config`, then runs two containers of the image against the machine's PostgreSQL and Redis behind
# nginx (round robin) and runs scripts/docker-check.ts through nginx: both containers serve browses and orders, the
# per-key limit holds across them, one container stopped mid-traffic loses no order, the health check is quiet.
# Needs root (apt, dockerd, debootstrap). Everything it starts is removed on exit; dockerd is left running.
set -euo pipefail
cd "$(dirname "$0")/.."

image=${DOCKER_IMAGE:-commerce-api:ci}
source .ci/free-port.sh
port1=${DOCKER_PORT1:-$(free_port)}
port2=${DOCKER_PORT2:-$(free_port "$port1")}
proxy_port=${DOCKER_PROXY_PORT:-$(free_port "$port1" "$port2")}
database=${DOCKER_DATABASE:-ci_docker}
pg=postgres://postgres@127.0.0.1:5432
names=(ci-docker-api-1 ci-docker-api-2)

started=$SECONDS
part_started=$SECONDS
part() { printf 'docker: %s (%ss into the stage, last part %ss)\n' "$*" $((SECONDS - started)) $((SECONDS - part_started)); part_started=$SECONDS; }

# Tools, when missing (Debian packages).
missing=()
command -v docker >/dev/null || missing+=(docker.io)
command -v dockerd >/dev/null || missing+=(docker.io)
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v nginx >/dev/null || missing+=(nginx)
command -v docker-compose >/dev/null || missing+=(docker-compose)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  part "installed ${missing[*]}"
fi

# The Docker daemon, when not running (left running afterwards, as a system service would be).
if ! docker info >/dev/null 2>&1; then
  # setsid -f: dockerd is not a child of this script, so no `wait` below can wait for it (a bare `wait` once did, and
  # the stage hung until CI's time ran out on a machine where dockerd was not yet running).
  setsid -f dockerd >/var/log/dockerd.log 2>&1 </dev/null
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { tail -20 /var/log/dockerd.log; echo "docker: dockerd did not start"; exit 1; }
  part "started dockerd"
fi

bash scripts/docker-base.sh
part "base image node:24-bookworm-slim ready"

# The project's Dockerfile, unchanged. BuildKit would try to pull the `# syntax=` frontend image; the classic builder
# reads the same file.
build_log=$(mktemp)
if ! DOCKER_BUILDKIT=0 timeout 900 docker build --network host -t "$image" . >"$build_log" 2>&1; then
  tail -40 "$build_log"
  echo "docker: build failed"
  exit 1
fi
rm -f "$build_log"
part "built $image"
size=$(docker image inspect -f '{{.Size}}' "$image")
echo "docker: image $image is $((size / 1000000)) MB ($size bytes)"
docker run --rm --entrypoint sh "$image" -c 'echo "docker: runs as $(id -un) (uid $(id -u)) on Node $(node -v)"; test "$(id -u)" != 0'

docker-compose -f docker-compose.yml config -q
echo "docker: docker-compose config: docker-compose.yml is valid"

# A database of its own on the machine's PostgreSQL; Redis is shared (rate-limit counters are per key, and the keys
# are new).
work=$(mktemp -d)
chmod 755 "$work"
cleanup() {
  local rc=$?
  for name in "${names[@]}"; do docker rm -f "$name" >/dev/null 2>&1 || true; done
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  psql "$pg/postgres" -qAtc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
for name in "${names[@]}"; do docker rm -f "$name" >/dev/null 2>&1 || true; done
psql "$pg/postgres" -qAtc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null
psql "$pg/postgres" -qAtc "CREATE DATABASE $database" >/dev/null

# Two containers started together: both apply migrations at start, under an advisory lock (src/db/migrate.ts).
# Host networking: they reach PostgreSQL and Redis on 127.0.0.1 as the service would on a private network.
run_container() {
  timeout 120 docker run -d --name "$1" --network host \
    -e HOST=127.0.0.1 -e PORT="$2" \
    -e DATABASE_URL="$pg/$database" -e REDIS_URL=redis://127.0.0.1:6379 \
    -e SEED_DEMO=false -e TRUST_PROXY=loopback -e PUBLIC_URL="http://127.0.0.1:$proxy_port" \
    -e DB_POOL_MAX=10 \
    "$image" >/dev/null
}
run_container "${names[0]}" "$port1" &
run1=$!
run_container "${names[1]}" "$port2" &
run2=$!
wait "$run1"
wait "$run2"
for _ in $(seq 1 60); do
  ready=0
  for p in "$port1" "$port2"; do [ "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$p/readyz")" = 200 ] && ready=$((ready + 1)); done
  [ "$ready" = 2 ] && break
  sleep 1
done
if [ "$ready" != 2 ]; then
  for name in "${names[@]}"; do echo "--- $name"; docker logs "$name" 2>&1 | tail -20; done
  echo "docker: the containers did not become ready"
  exit 1
fi
part "two containers ready on :$port1 and :$port2"
for name in "${names[@]}"; do
  applied=$(docker logs "$name" 2>&1 | grep -o 'applied [0-9]* migration(s)' || true)
  echo "docker: $name: ${applied:-applied no migration (the other one had, under the advisory lock)}"
done

# nginx from Debian, its own configuration and port: round robin over both; a request that cannot reach one
# container (refused, reset before an answer, 502/503) goes to the other. POST is passed on only when it was not
# yet sent (nginx's default for non-idempotent methods); the client retries those with the same external_reference.
cat >"$work/nginx.conf" <<EOF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $work/client_body;
  proxy_temp_path $work/proxy;
  fastcgi_temp_path $work/fastcgi;
  uwsgi_temp_path $work/uwsgi;
  scgi_temp_path $work/scgi;
  upstream api {
    server 127.0.0.1:$port1 max_fails=1 fail_timeout=5s;
    server 127.0.0.1:$port2 max_fails=1 fail_timeout=5s;
    keepalive 16;
  }
  server {
    listen 127.0.0.1:$proxy_port;
    location / {
      proxy_pass http://api;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto \$scheme;
      proxy_connect_timeout 2s;
      proxy_next_upstream error timeout http_502 http_503;
      proxy_next_upstream_tries 2;
    }
  }
}
EOF
nginx -t -q -c "$work/nginx.conf" -p "$work"
nginx -c "$work/nginx.conf" -p "$work"
for _ in $(seq 1 20); do [ "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$proxy_port/healthz")" = 200 ] && break; sleep 0.5; done
part "nginx $(nginx -v 2>&1 | sed 's/.*nginx\///') on :$proxy_port"

# A company, five keys and a catalogue, made with the image's own admin tool (node dist/cli/main.js).
admin() { timeout 120 docker exec "${names[0]}" node dist/cli/main.js "$@"; }
admin company create --name "CI Docker Store" --slug ci-docker >/dev/null
keys=()
for label in browse limit orders-1 orders-2 orders-3; do
  keys+=("$(admin key create --company ci-docker --name "$label" --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).key))')")
done
cat >"$work/catalogue.json" <<'EOF'
{
  "format": "commerce-catalogue/1",
  "locations": [{ "code": "WH", "name": "Warehouse", "kind": "warehouse", "active": true, "ships_orders": true }],
  "categories": [{ "slug": "tees", "name": "T-shirts", "parent": null }],
  "brands": [{ "slug": "ci", "name": "CI" }],
  "products": [
    {
      "sku": "CI-TEE", "name": "CI Tee", "description": "A tee for the container check.", "unit": "PCS", "hsn_code": "6109",
      "tax_rate": "5", "category": "tees", "brand": "ci", "photos": [],
      "variants": [
        { "sku": "CI-TEE-M", "attributes": { "Size": "M" }, "selling_price": "499.00", "photos": [], "stock": { "WH": "100000" } },
        { "sku": "CI-TEE-L", "attributes": { "Size": "L" }, "selling_price": "499.00", "photos": [], "stock": { "WH": "100000" } }
      ]
    },
    {
      "sku": "CI-CAP", "name": "CI Cap", "description": null, "unit": "PCS", "hsn_code": "6505", "tax_rate": "12",
      "category": null, "brand": "ci", "photos": [],
      "variants": [{ "sku": "CI-CAP-1", "attributes": {}, "selling_price": "299.00", "photos": [], "stock": { "WH": "100000" } }]
    }
  ]
}
EOF
chmod 644 "$work/catalogue.json"
docker cp "$work/catalogue.json" "${names[0]}:/tmp/ci-catalogue.json"
admin catalog import --company ci-docker /tmp/ci-catalogue.json >/dev/null
part "company, 5 keys and a catalogue made with the image's admin tool"

DOCKER_CHECK_PROXY="http://127.0.0.1:$proxy_port" \
  DOCKER_CHECK_CONTAINERS="${names[0]},${names[1]}" \
  DOCKER_CHECK_KEYS="$(
    IFS=,
    echo "${keys[*]}"
  )" \
  DOCKER_CHECK_DATABASE_URL="$pg/$database" \
  timeout 600 npx tsx scripts/docker-check.ts
part "checks through nginx passed"
echo "docker: passed in ${SECONDS}s (image $((size / 1000000)) MB)"
