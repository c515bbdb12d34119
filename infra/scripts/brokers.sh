#!/usr/bin/env bash
# brokers.sh up|down|status: a local RabbitMQ and Kafka on loopback for tests and benchmarks.
#
#   eval "$(infra/scripts/brokers.sh up)"   # starts both (or reuses running ones), exports
#                                           # INGEST_TEST_KAFKA and INGEST_TEST_RABBITMQ
#   infra/scripts/brokers.sh down           # stops both; no broker process is left behind
#   infra/scripts/brokers.sh kafka-down|kafka-up|rabbitmq-down|rabbitmq-up
#                                           # one broker only (restart tests)
#
# Kafka runs from KAFKA_HOME (any official Apache Kafka 4.x download, or a folder laid out like
# one); RabbitMQ is Debian's rabbitmq-server, installed if absent (as root). Only the export
# lines go to stdout, so `eval` works; progress goes to stderr.
#
# Settings: INGEST_BROKERS_DIR (state, default /tmp/ingest-brokers), INGEST_KAFKA_PORT (9092; the
# controller uses the next port), INGEST_RABBITMQ_PORT (5672), INGEST_RABBITMQ_NODE (rabbit@localhost;
# a second instance needs its own), KAFKA_HEAP (768m).
set -euo pipefail

state="${INGEST_BROKERS_DIR:-/tmp/ingest-brokers}"
kafka_port="${INGEST_KAFKA_PORT:-9092}"
rabbit_port="${INGEST_RABBITMQ_PORT:-5672}"
kafka_dir="$state/kafka"
rabbit_dir="$state/rabbitmq"

say() { echo "brokers.sh: $*" >&2; }
die() { say "$*"; exit 1; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

apt_install() {
  [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null \
    || die "$1 is missing; install the Debian package(s) '${*:2}' (needs root)"
  say "installing ${*:2}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${@:2}" >&2
}

# The environment every rabbitmq-server/rabbitmqctl call shares, so they find the same node.
rabbit_env() {
  export RABBITMQ_NODENAME="${INGEST_RABBITMQ_NODE:-rabbit@localhost}" RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
  export RABBITMQ_NODE_PORT="$rabbit_port" RABBITMQ_DIST_PORT=$((rabbit_port + 20000))
  export ERL_EPMD_ADDRESS=127.0.0.1 RABBITMQ_PID_FILE="$rabbit_dir/rabbitmq.pid"
  export RABBITMQ_MNESIA_BASE="$rabbit_dir/mnesia" RABBITMQ_LOG_BASE="$rabbit_dir/log"
}

kafka_tool() { KAFKA_HEAP_OPTS=-Xmx256m "$KAFKA_HOME/bin/$1" "${@:2}"; }

kafka_up() {
  [[ -n "${KAFKA_HOME:-}" ]] || die "KAFKA_HOME is not set: point it at a Kafka 4.x installation (e.g. ../shared/kafka)"
  [[ -x "$KAFKA_HOME/bin/kafka-server-start.sh" ]] || die "KAFKA_HOME=$KAFKA_HOME has no bin/kafka-server-start.sh"
  command -v java >/dev/null || apt_install java openjdk-17-jre-headless
  mkdir -p "$kafka_dir"
  if alive "$kafka_dir/kafka.pid"; then
    say "kafka already running (pid $(cat "$kafka_dir/kafka.pid")) on 127.0.0.1:$kafka_port"
    return
  fi
  port_open "$kafka_port" && die "port $kafka_port is taken by another process; set INGEST_KAFKA_PORT"
  local controller=$((kafka_port + 1))
  cat >"$kafka_dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller
listeners=PLAINTEXT://127.0.0.1:$kafka_port,CONTROLLER://127.0.0.1:$controller
advertised.listeners=PLAINTEXT://127.0.0.1:$kafka_port
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$kafka_dir/data
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
EOF
  if [[ ! -f "$kafka_dir/data/meta.properties" ]]; then
    local cluster
    cluster="$(kafka_tool kafka-storage.sh random-uuid 2>/dev/null | tail -1)"
    kafka_tool kafka-storage.sh format -t "$cluster" -c "$kafka_dir/server.properties" >"$kafka_dir/format.log" 2>&1 \
      || { cat "$kafka_dir/format.log" >&2; die "formatting the Kafka log directory failed"; }
  fi
  say "starting kafka on 127.0.0.1:$kafka_port (log: $kafka_dir/kafka.log)"
  # setsid: the broker outlives this script and ignores the caller's terminal signals;
  # all three streams are redirected so `eval "$(brokers.sh up)"` does not wait on it.
  LOG_DIR="$kafka_dir/logs" KAFKA_HEAP_OPTS="-Xms256m -Xmx${KAFKA_HEAP:-768m}" \
    setsid "$KAFKA_HOME/bin/kafka-server-start.sh" "$kafka_dir/server.properties" \
    </dev/null >"$kafka_dir/kafka.log" 2>&1 &
  echo $! >"$kafka_dir/kafka.pid"
  for _ in $(seq 1 120); do
    alive "$kafka_dir/kafka.pid" || { tail -20 "$kafka_dir/kafka.log" >&2; die "kafka exited during start-up"; }
    if port_open "$kafka_port" \
      && kafka_tool kafka-topics.sh --bootstrap-server "127.0.0.1:$kafka_port" --list >/dev/null 2>&1; then
      say "kafka ready"
      return
    fi
    sleep 1
  done
  die "kafka did not become ready within 120 s (log: $kafka_dir/kafka.log)"
}

rabbit_up() {
  command -v rabbitmq-server >/dev/null || apt_install rabbitmq-server rabbitmq-server
  rabbit_env
  mkdir -p "$rabbit_dir/mnesia" "$rabbit_dir/log"
  # Debian's wrapper drops root privileges to the rabbitmq user, which must own the state.
  if [[ $(id -u) == 0 ]] && id rabbitmq >/dev/null 2>&1; then chown -R rabbitmq:rabbitmq "$rabbit_dir"; fi
  if alive "$RABBITMQ_PID_FILE" && rabbitmqctl -q status >/dev/null 2>&1; then
    say "rabbitmq already running on 127.0.0.1:$rabbit_port"
    return
  fi
  port_open "$rabbit_port" && die "port $rabbit_port is taken by another process; set INGEST_RABBITMQ_PORT"
  say "starting rabbitmq on 127.0.0.1:$rabbit_port (logs: $rabbit_dir/log)"
  rabbitmq-server -detached </dev/null >"$rabbit_dir/start.log" 2>&1
  # `await_startup` right after -detached fails (the node is not registered yet); `wait` polls the pid file.
  # The pid file appears empty and is filled a moment later: `wait` reading it in between fails with
  # garbage_in_pid_file (seen in CI), so first wait for a number in it.
  for _ in $(seq 1 180); do
    [[ $(cat "$RABBITMQ_PID_FILE" 2>/dev/null) =~ ^[0-9]+$ ]] && break
    sleep 0.5
  done
  rabbitmqctl wait --timeout 90 "$RABBITMQ_PID_FILE" >"$rabbit_dir/wait.log" 2>&1 \
    || { cat "$rabbit_dir/wait.log" >&2; tail -20 "$rabbit_dir"/log/*.log >&2 || true; die "rabbitmq did not start"; }
  say "rabbitmq ready"
}

kafka_down() {
  alive "$kafka_dir/kafka.pid" || { rm -f "$kafka_dir/kafka.pid"; return; }
  local pid
  pid="$(cat "$kafka_dir/kafka.pid")"
  say "stopping kafka (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$kafka_dir/kafka.pid"
}

rabbit_down() {
  command -v rabbitmqctl >/dev/null || return 0
  rabbit_env
  if alive "$RABBITMQ_PID_FILE"; then
    say "stopping rabbitmq"
    local pid
    pid="$(cat "$RABBITMQ_PID_FILE")"
    rabbitmqctl stop "$RABBITMQ_PID_FILE" >/dev/null 2>&1 || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  # The node leaves Erlang's port mapper daemon behind; stop it unless other nodes still use it.
  if command -v epmd >/dev/null && epmd -names 2>/dev/null | grep -q '^epmd: up and running' \
    && ! epmd -names 2>/dev/null | grep -q '^name '; then
    epmd -kill >/dev/null 2>&1 || true
  fi
}

# Anything still running from the state directory after `down` is a stray; end it.
reap_strays() {
  local strays
  strays="$(pgrep -f -- "$state" || true)"
  if [[ -n "$strays" ]]; then
    say "ending stray processes: $strays"
    kill -KILL $strays 2>/dev/null || true
  fi
}

case "${1:-}" in
  up)
    rabbit_up
    kafka_up
    echo "export INGEST_TEST_KAFKA=127.0.0.1:$kafka_port"
    echo "export INGEST_TEST_RABBITMQ=amqp://guest:guest@127.0.0.1:$rabbit_port/"
    ;;
  kafka-up) kafka_up ;;
  kafka-down) kafka_down ;;
  rabbitmq-up) rabbit_up ;;
  rabbitmq-down) rabbit_down ;;
  down)
    kafka_down
    rabbit_down
    reap_strays
    say "brokers stopped"
    ;;
  status)
    alive "$kafka_dir/kafka.pid" && echo "kafka: running on 127.0.0.1:$kafka_port" || echo "kafka: stopped"
    rabbit_env
    alive "$RABBITMQ_PID_FILE" && echo "rabbitmq: running on 127.0.0.1:$rabbit_port" || echo "rabbitmq: stopped"
    ;;
  *)
    echo "usage: $0 up|down|status|kafka-up|kafka-down|rabbitmq-up|rabbitmq-down" >&2
    exit 2
    ;;
esac
