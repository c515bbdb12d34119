#!/usr/bin/env bash
# The compose "demo" profile's producer: 20 orders a second, forever, to the topic the ingest service
# consumes ("ingest"), into the Orders collection (the ingest-collection header), each with its id in
# the body (the source's IdProperty). Roughly one in ten updates an earlier order's status. The properties are
# named as the "Orders (example)" dashboard's queries and the Orders/RevenuePerHour index read them (Company,
# Status, Total, OrderedAt; property names match case-sensitively).
set -euo pipefail
bootstrap="${DEMO_BOOTSTRAP:-kafka:9092}"
topic="${DEMO_TOPIC:-ingest}"
rate="${DEMO_ORDERS_PER_SECOND:-20}"
companies=(Ada Lin Grace Alan Edsger Barbara Ken Margaret)
statuses=(new paid shipped delivered cancelled)
n=0
while true; do
  for ((i = 0; i < rate; i++)); do
    if (( n > 10 && RANDOM % 10 == 0 )); then
      id=$(( RANDOM % n + 1 ))
    else
      n=$(( n + 1 ))
      id=$n
    fi
    company=${companies[RANDOM % ${#companies[@]}]}
    status=${statuses[RANDOM % ${#statuses[@]}]}
    total="$(( RANDOM % 500 )).$(( RANDOM % 100 ))"
    printf 'ingest-collection:Orders\t{"id":"orders/%d","Company":"%s","Status":"%s","Total":%s,"OrderedAt":"%s"}\n' \
      "$id" "$company" "$status" "$total" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  done
  sleep 1
done | /opt/kafka/bin/kafka-console-producer.sh --bootstrap-server "$bootstrap" --topic "$topic" \
  --property parse.headers=true --property parse.key=false
