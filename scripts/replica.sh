#!/usr/bin/env bash
# A streaming replica of this machine's PostgreSQL (127.0.0.1:5432) for the replica tests (docs/scaling.md):
# a cluster of its own on PORT, made with `pg_basebackup -R` through a replication slot, with Debian's postgresql-common
# tools, as root. The primary's pg_hba.conf gets one line allowing replication from 127.0.0.1 (added once, then reloaded).
#
#   scripts/replica.sh create PORT   make and start it; prints its server URL
#   scripts/replica.sh start PORT    start it again (after kill)
#   scripts/replica.sh kill PORT     SIGKILL its postmaster and every process of it
#   scripts/replica.sh remove PORT   stop and delete it, and drop its slot on the primary
#   scripts/replica.sh remove-stale  remove every replica this script made whose maker (the process that ran create) is gone
set -euo pipefail

primary_port=${PRIMARY_PORT:-5432}
version=$(pg_lsclusters -h | awk -v p="$primary_port" '$3 == p { print $1; exit }')
[ -n "$version" ] || { echo "no PostgreSQL cluster on port $primary_port (pg_lsclusters)" >&2; exit 1; }

primary() { psql -h 127.0.0.1 -p "$primary_port" -U postgres -d postgres -Atqc "$1"; }
cluster_exists() { pg_lsclusters -h | awk -v n="$1" '$2 == n { found = 1 } END { exit !found }'; }

drop_slot() {
  for _ in $(seq 1 50); do
    [ "$(primary "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$1' AND active")" = 0 ] && break
    sleep 0.1
  done
  primary "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '$1' AND NOT active" >/dev/null
}

remove() {
  local port=$1
  if cluster_exists "replica_$port"; then pg_dropcluster --stop "$version" "replica_$port" 2>/dev/null || true; fi
  # pg_dropcluster leaves the folder when it holds our owner file
  cluster_exists "replica_$port" || rm -rf "/etc/postgresql/$version/replica_$port"
  drop_slot "commerce_replica_$port"
}

kill_cluster() {
  local data=/var/lib/postgresql/$version/replica_$1 pid
  [ -f "$data/postmaster.pid" ] || return 0
  pid=$(head -1 "$data/postmaster.pid")
  # the postmaster and its own children (startup, walreceiver, backends): the processes this script started, by id
  kill -9 "$pid" $(pgrep -P "$pid" || true) 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
}

start_cluster() {
  local port=$1
  for _ in $(seq 1 20); do
    pg_ctlcluster --skip-systemctl-redirect "$version" "replica_$port" start 2>/dev/null && break
    sleep 0.5 # after a kill, the old processes may still be leaving
  done
  for _ in $(seq 1 60); do pg_isready -h 127.0.0.1 -p "$port" -q && return 0; sleep 0.5; done
  echo "replica on port $port did not start" >&2
  exit 1
}

remove_stale() {
  local name owner
  for name in $(pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 ~ /^replica_[0-9]+$/ { print $2 }'); do
    owner=$(cat "/etc/postgresql/$version/$name/commerce-owner-pid" 2>/dev/null || true)
    [ -n "$owner" ] || continue # not made by this script
    kill -0 "$owner" 2>/dev/null || remove "${name#replica_}"
  done
  # a slot whose replica is gone (a backup cut short leaves one): inactive and without its cluster, it only keeps WAL
  for name in $(primary "SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE 'commerce\_replica\_%' AND NOT active"); do
    cluster_exists "replica_${name#commerce_replica_}" || primary "SELECT pg_drop_replication_slot('$name')" >/dev/null
  done
  # what a cut-short run leaves of a removed cluster: its folder holding only the owner file
  for dir in /etc/postgresql/"$version"/replica_*; do
    [ -d "$dir" ] && ! cluster_exists "$(basename "$dir")" && rm -rf "$dir"
  done
  return 0
}

case "${1:-}" in
  create)
    port=${2:?usage: replica.sh create PORT}
    hba=$(primary 'SHOW hba_file')
    if ! grep -Eq '^host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba"; then
      echo 'host replication all 127.0.0.1/32 trust' >>"$hba"
      primary 'SELECT pg_reload_conf()' >/dev/null
    fi
    remove_stale
    remove "$port"
    pg_createcluster "$version" "replica_$port" -p "$port" >/dev/null
    echo "${REPLICA_OWNER_PID:-$PPID}" >"/etc/postgresql/$version/replica_$port/commerce-owner-pid"
    cp "$hba" "/etc/postgresql/$version/replica_$port/pg_hba.conf" # the primary's access rules (trust on 127.0.0.1)
    data=/var/lib/postgresql/$version/replica_$port
    rm -rf "$data"
    install -d -o postgres -g postgres -m 700 "$data"
    # --checkpoint=fast: the default (spread) waits for a paced checkpoint, up to minutes, while the rest of the suite
    # creates and drops databases; a DROP DATABASE waits for this backup's sender, so the backup must be short.
    runuser -u postgres -- pg_basebackup -h 127.0.0.1 -p "$primary_port" -U postgres -D "$data" -R -X stream -C -S "commerce_replica_$port" --checkpoint=fast
    start_cluster "$port"
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  start) start_cluster "${2:?usage: replica.sh start PORT}" ;;
  kill) kill_cluster "${2:?usage: replica.sh kill PORT}" ;;
  remove) remove "${2:?usage: replica.sh remove PORT}" ;;
  remove-stale) remove_stale ;;
  *)
    echo "usage: scripts/replica.sh create|start|kill|remove PORT | remove-stale" >&2
    exit 2
    ;;
esac
