#!/usr/bin/env bash
# brokers.sh up|down|status: a local RabbitMQ and Kafka on loopback for tests and benchmarks.
#
#   eval "$(infra/scripts/brokers.sh up)"   # starts both (or reuses running ones), exports
#                                           # INGEST_TEST_KAFKA and INGEST_TEST_RABBITMQ
#   eval "$(infra/scripts/brokers.sh up --secure)"
#                                           # the same brokers with TLS and SASL listeners beside
#                                           # the plain ones (see "Secure mode" below)
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
#
# Secure mode (`--secure` after any up command, or INGEST_BROKERS_SECURE=1) adds listeners to the same
# two brokers rather than starting more: no extra JVM or Erlang node (the machine and CI are small),
# and the plain listeners stay exactly as they are. It makes a throwaway CA and a server certificate
# for localhost and 127.0.0.1 (openssl, into $INGEST_BROKERS_DIR/tls) and opens:
#   Kafka SASL_SSL   127.0.0.1:(Kafka port + 2)  SCRAM-SHA-256, user `ingest` with a random password
#                                                (made when the log directory is formatted)
#   Kafka SSL        127.0.0.1:(Kafka port + 3)  TLS only
#   RabbitMQ TLS     127.0.0.1:(AMQP port - 1)   amqps, the usual 5671 beside 5672; guest/guest
# and exports INGEST_TEST_KAFKA_SASL_SSL, INGEST_TEST_KAFKA_SSL, INGEST_TEST_KAFKA_SCRAM_USER,
# INGEST_TEST_KAFKA_SCRAM_PASSWORD, INGEST_TEST_RABBITMQ_TLS and INGEST_TEST_BROKER_CA (the CA's PEM).
# A broker already running without these listeners is not restarted: `down` first.
set -euo pipefail

state="${INGEST_BROKERS_DIR:-/tmp/ingest-brokers}"
kafka_port="${INGEST_KAFKA_PORT:-9092}"
rabbit_port="${INGEST_RABBITMQ_PORT:-5672}"
kafka_dir="$state/kafka"
rabbit_dir="$state/rabbitmq"
tls_dir="$state/tls"
secure="${INGEST_BROKERS_SECURE:-0}"
if [[ "${2:-}" == "--secure" ]]; then secure=1; fi
kafka_sasl_port=$((kafka_port + 2))
kafka_ssl_port=$((kafka_port + 3))
rabbit_tls_port=$((rabbit_port - 1))
scram_user=ingest

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

# A CA and a server certificate signed by it, made once per state directory (throwaway: test brokers
# only). The key files are world-readable because Debian's rabbitmq-server drops to the rabbitmq user.
tls_up() {
  [[ -f "$tls_dir/server.pem" ]] && return
  command -v openssl >/dev/null || apt_install openssl openssl
  mkdir -p "$tls_dir"
  say "making a throwaway CA and server certificate in $tls_dir"
  (
    cd "$tls_dir"
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -keyout ca.key -out ca.pem -subj "/CN=Ingest test brokers CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
    openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=localhost"
    printf '%s\n' "subjectAltName=DNS:localhost,IP:127.0.0.1" "basicConstraints=CA:FALSE" \
      "keyUsage=digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 -extfile server.ext -out server.pem
    # Kafka's PEM key store: the (unencrypted PKCS#8) key and the certificate in one file.
    cat server.key server.pem >kafka-keystore.pem
    openssl rand -hex 16 >scram-password
    chmod 644 ./*.key ./*.pem
  ) >"$state/tls.log" 2>&1 || { cat "$state/tls.log" >&2; die "making the certificates failed"; }
}

kafka_up() {
  [[ -n "${KAFKA_HOME:-}" ]] || die "KAFKA_HOME is not set: point it at a Kafka 4.x installation (e.g. ../shared/kafka)"
  [[ -x "$KAFKA_HOME/bin/kafka-server-start.sh" ]] || die "KAFKA_HOME=$KAFKA_HOME has no bin/kafka-server-start.sh"
  command -v java >/dev/null || apt_install java openjdk-17-jre-headless
  mkdir -p "$kafka_dir"
  if alive "$kafka_dir/kafka.pid"; then
    if [[ $secure == 1 ]] && ! grep -q "SASL_SSL://" "$kafka_dir/server.properties"; then
      die "kafka is running without the secure listeners; stop it first (brokers.sh down or kafka-down)"
    fi
    say "kafka already running (pid $(cat "$kafka_dir/kafka.pid")) on 127.0.0.1:$kafka_port"
    return
  fi
  port_open "$kafka_port" && die "port $kafka_port is taken by another process; set INGEST_KAFKA_PORT"
  local controller=$((kafka_port + 1))
  local listeners="PLAINTEXT://127.0.0.1:$kafka_port" map="CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"
  if [[ $secure == 1 ]]; then
    tls_up
    for p in "$kafka_sasl_port" "$kafka_ssl_port"; do port_open "$p" && die "port $p (a secure Kafka listener) is taken by another process"; done
    listeners="$listeners,SASL_SSL://127.0.0.1:$kafka_sasl_port,SSL://127.0.0.1:$kafka_ssl_port"
    map="$map,SASL_SSL:SASL_SSL,SSL:SSL"
  fi
  cat >"$kafka_dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller
listeners=$listeners,CONTROLLER://127.0.0.1:$controller
advertised.listeners=$listeners
controller.listener.names=CONTROLLER
listener.security.protocol.map=$map
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
  if [[ $secure == 1 ]]; then
    cat >>"$kafka_dir/server.properties" <<EOF
ssl.keystore.type=PEM
ssl.keystore.location=$tls_dir/kafka-keystore.pem
ssl.client.auth=none
sasl.enabled.mechanisms=SCRAM-SHA-256
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
EOF
  fi
  if [[ ! -f "$kafka_dir/data/meta.properties" ]]; then
    local cluster scram=()
    cluster="$(kafka_tool kafka-storage.sh random-uuid 2>/dev/null | tail -1)"
    # The SCRAM user goes into the metadata log at format time: no JVM tool run after start-up.
    if [[ $secure == 1 ]]; then scram=(--add-scram "SCRAM-SHA-256=[name=$scram_user,password=$(cat "$tls_dir/scram-password")]"); fi
    kafka_tool kafka-storage.sh format -t "$cluster" -c "$kafka_dir/server.properties" "${scram[@]}" >"$kafka_dir/format.log" 2>&1 \
      || { cat "$kafka_dir/format.log" >&2; die "formatting the Kafka log directory failed"; }
    if [[ $secure == 1 ]]; then touch "$kafka_dir/scram-user"; fi
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
    if port_open "$kafka_port" && { [[ $secure == 0 ]] || port_open "$kafka_sasl_port"; } \
      && kafka_tool kafka-topics.sh --bootstrap-server "127.0.0.1:$kafka_port" --list >/dev/null 2>&1; then
      if [[ $secure == 1 && ! -f "$kafka_dir/scram-user" ]]; then
        # Formatted earlier without it (a plain start): add the user through the running broker.
        kafka_tool kafka-run-class.sh kafka.admin.ConfigCommand --bootstrap-server "127.0.0.1:$kafka_port" --alter \
          --add-config "SCRAM-SHA-256=[password=$(cat "$tls_dir/scram-password")]" --entity-type users --entity-name "$scram_user" \
          >"$kafka_dir/scram.log" 2>&1 || { cat "$kafka_dir/scram.log" >&2; die "adding the SCRAM user failed"; }
        touch "$kafka_dir/scram-user"
      fi
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
    if [[ $secure == 1 ]] && ! port_open "$rabbit_tls_port"; then
      die "rabbitmq is running without the TLS listener; stop it first (brokers.sh down or rabbitmq-down)"
    fi
    say "rabbitmq already running on 127.0.0.1:$rabbit_port"
    return
  fi
  port_open "$rabbit_port" && die "port $rabbit_port is taken by another process; set INGEST_RABBITMQ_PORT"
  if [[ $secure == 1 ]]; then
    tls_up
    port_open "$rabbit_tls_port" && die "port $rabbit_tls_port (RabbitMQ's TLS listener) is taken by another process"
    # The plain listener stays where the environment puts it (RABBITMQ_NODE_IP_ADDRESS/PORT).
    cat >"$rabbit_dir/rabbitmq.conf" <<EOF
listeners.ssl.default = 127.0.0.1:$rabbit_tls_port
ssl_options.cacertfile = $tls_dir/ca.pem
ssl_options.certfile = $tls_dir/server.pem
ssl_options.keyfile = $tls_dir/server.key
ssl_options.verify = verify_none
ssl_options.fail_if_no_peer_cert = false
EOF
    if [[ $(id -u) == 0 ]] && id rabbitmq >/dev/null 2>&1; then chown rabbitmq:rabbitmq "$rabbit_dir/rabbitmq.conf"; fi
    export RABBITMQ_CONFIG_FILE="$rabbit_dir/rabbitmq.conf"
  fi
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
    if [[ $secure == 1 ]]; then
      echo "export INGEST_TEST_BROKER_CA=$tls_dir/ca.pem"
      echo "export INGEST_TEST_KAFKA_SASL_SSL=127.0.0.1:$kafka_sasl_port"
      echo "export INGEST_TEST_KAFKA_SSL=127.0.0.1:$kafka_ssl_port"
      echo "export INGEST_TEST_KAFKA_SCRAM_USER=$scram_user"
      echo "export INGEST_TEST_KAFKA_SCRAM_PASSWORD=$(cat "$tls_dir/scram-password")"
      echo "export INGEST_TEST_RABBITMQ_TLS=amqps://guest:guest@127.0.0.1:$rabbit_tls_port/"
    fi
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
    port_open "$kafka_sasl_port" && echo "kafka: SASL_SSL on 127.0.0.1:$kafka_sasl_port, SSL on 127.0.0.1:$kafka_ssl_port"
    port_open "$rabbit_tls_port" && echo "rabbitmq: TLS on 127.0.0.1:$rabbit_tls_port"
    true
    ;;
  *)
    echo "usage: $0 up|down|status|kafka-up|kafka-down|rabbitmq-up|rabbitmq-down [--secure]" >&2
    exit 2
    ;;
esac
