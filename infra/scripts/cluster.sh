#!/usr/bin/env bash
# cluster.sh up [N]|down|status: N Ingest nodes (default 3) in cluster mode on this machine, for trying the
# cluster out and for the README's walk-through. Each node is the server built once in Release, run as
#   node-i  on http://127.0.0.1:(8080 + i)  with its data in $INGEST_CLUSTER_DIR/node-i
# and the cluster settings Ingest:Cluster:Node=node-i and Ingest:Cluster:BootstrapServers=$INGEST_CLUSTER_KAFKA.
# Anything else a node should have (sources, ETL tasks, API keys) goes in the environment as usual
# (Ingest__Sources__Kafka__0__Topics__0=orders ...): every node gets the same.
#
# Settings: INGEST_CLUSTER_DIR (default ./cluster-data), INGEST_CLUSTER_KAFKA (default 127.0.0.1:9092),
# INGEST_CLUSTER_BASE_PORT (default 8080; node i listens on base + i).
set -euo pipefail

dir="${INGEST_CLUSTER_DIR:-./cluster-data}"
kafka="${INGEST_CLUSTER_KAFKA:-127.0.0.1:9092}"
base_port="${INGEST_CLUSTER_BASE_PORT:-8080}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
server="$root/services/Ingest.Server/bin/Release/net10.0/Ingest.Server.dll"

say() { echo "cluster.sh: $*" >&2; }
alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

up() {
  local count="${1:-3}"
  mkdir -p "$dir"
  say "building the server (Release)"
  dotnet build "$root/services/Ingest.Server" -c Release -nologo -v quiet >&2
  for i in $(seq 1 "$count"); do
    local node="node-$i" port=$((base_port + i))
    local pid="$dir/$node.pid" log="$dir/$node.log"
    if alive "$pid"; then say "$node already runs (pid $(cat "$pid"))"; continue; fi
    mkdir -p "$dir/$node"
    Ingest__Cluster__Node="$node" Ingest__Cluster__BootstrapServers="$kafka" \
      nohup dotnet exec "$server" --urls "http://127.0.0.1:$port" --Ingest:DataDirectory="$dir/$node" >"$log" 2>&1 &
    echo $! >"$pid"
    say "$node starting on http://127.0.0.1:$port (log: $log)"
  done
  for i in $(seq 1 "$count"); do
    local node="node-$i" log="$dir/node-$i.log"
    for _ in $(seq 1 120); do
      if grep -q "Application started" "$log" 2>/dev/null; then break; fi
      if ! alive "$dir/$node.pid"; then say "$node exited:"; tail -20 "$log" >&2; exit 1; fi
      sleep 1
    done
    grep -q "Application started" "$log" || { say "$node did not start within 120 s (log: $log)"; exit 1; }
    say "$node ready"
  done
}

down() {
  shopt -s nullglob
  for pid in "$dir"/*.pid; do
    if alive "$pid"; then kill -TERM "$(cat "$pid")"; say "stopping $(basename "$pid" .pid)"; fi
  done
  for pid in "$dir"/*.pid; do
    for _ in $(seq 1 30); do alive "$pid" || break; sleep 1; done
    alive "$pid" && kill -KILL "$(cat "$pid")"
    rm -f "$pid"
  done
}

status() {
  shopt -s nullglob
  for pid in "$dir"/*.pid; do
    local node; node="$(basename "$pid" .pid)"
    if alive "$pid"; then echo "$node: running (pid $(cat "$pid"))"; else echo "$node: stopped"; fi
  done
}

case "${1:-}" in
  up) up "${2:-3}" ;;
  down) down ;;
  status) status ;;
  *) echo "usage: cluster.sh up [N]|down|status" >&2; exit 2 ;;
esac
