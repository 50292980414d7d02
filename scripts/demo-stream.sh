#!/usr/bin/env bash
# The stream demo of the quick start, against a running local cluster:
#   scripts/demo-stream.sh [--dir DIR] [--port P] [--notify-port N]
# starts a small WebSocket receiver (examples/notify_receiver.py, log in DIR), creates a
# database with a per-minute stream over meter readings (examples/stream_demo.sql), waits
# until the stream runs on the snodes, loads 5 minutes of generated readings for 3 meters
# (one every 10 s), then shows the output table (the first 4 minutes of each meter are
# closed: 12 rows) and the notifications that arrived. Exits non-zero when they do not.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=./sluice-local PORT=6030 NPORT=6299
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) DIR="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --notify-port) NPORT="$2"; shift 2 ;;
    *) echo "demo-stream: unknown argument $1" >&2; exit 2 ;;
  esac
done
bin=${SLUICE_BIN:-build/bin}
# A Python with the websockets module (Debian: python3-websockets) for the receiver.
PY=${SLUICE_PYTHON:-}
for p in /usr/bin/python3 python3; do
  if [ -z "$PY" ] && "$p" -c "import websockets" 2>/dev/null; then PY=$p; fi
done
[ -n "$PY" ] || { echo "demo-stream: needs python3 with websockets (apt-get install python3-websockets)" >&2; exit 1; }
cli() { "$bin/sluice" -h 127.0.0.1 -P "$PORT" "$@"; }
mkdir -p "$DIR"

# The receiver (kept running, like the cluster).
if [ -f "$DIR/receiver.pid" ] && kill -0 "$(cat "$DIR/receiver.pid")" 2>/dev/null; then
  echo "demo-stream: receiver already running (pid $(cat "$DIR/receiver.pid"))"
else
  : > "$DIR/notifications.jsonl"
  nohup "$PY" examples/notify_receiver.py --port "$NPORT" --out "$DIR/notifications.jsonl" \
    > "$DIR/receiver.log" 2>&1 < /dev/null &
  echo $! > "$DIR/receiver.pid"
  echo "demo-stream: notification receiver on ws://127.0.0.1:$NPORT (pid $!, log $DIR/receiver.log)"
fi
before=$(wc -l < "$DIR/notifications.jsonl")

sed "s/@NOTIFY_PORT@/$NPORT/" examples/stream_demo.sql > "$DIR/stream_demo.sql"
cli -f "$DIR/stream_demo.sql"

echo "demo-stream: waiting for the stream to run on the snodes ..."
for _ in $(seq 1 100); do
  pending=$(cli --csv -s "SELECT count(*) FROM information_schema.ins_stream_tasks WHERE db_name = 'demo' AND (status <> 'running' OR rows IS NULL)" | tail -1)
  [ "$pending" = "0" ] && break
  sleep 0.2
done
[ "$pending" = "0" ] || { echo "demo-stream: the stream did not start" >&2; exit 1; }

echo "demo-stream: loading 5 minutes of readings of 3 meters (one every 10 s) ..."
awk 'BEGIN {
  split("d1001 d1002 d1003", m, " "); split("San Francisco|San Francisco|Los Angeles", loc, "|");
  print "USE demo;";
  for (k = 1; k <= 3; k++) {
    printf "INSERT INTO %s USING meters TAGS (\x27%s\x27, %d) VALUES", m[k], loc[k], k;
    for (i = 0; i < 30; i++)
      printf " (%.0f, %.2f, %d, %.2f)", 1735689600000 + i * 10000, 10 + ((i * k) % 7) * 0.5,
             215 + (i * 3 + k) % 11, 0.3 + (i % 5) * 0.01;
    print ";";
  }
}' > "$DIR/stream_demo_data.sql"
cli -f "$DIR/stream_demo_data.sql" > /dev/null

for _ in $(seq 1 100); do
  n=$(cli --csv -s "SELECT count(*) FROM demo.meters_1m" | tail -1)
  got=$(( $(wc -l < "$DIR/notifications.jsonl") - before ))
  [ "$n" = "12" ] && [ "$got" -gt 0 ] && break
  sleep 0.2
done
cli -s "SELECT tag_tbname AS meter, wstart, readings, avg_current, max_voltage FROM demo.meters_1m ORDER BY meter, wstart"
events=$(tail -n +"$((before + 1))" "$DIR/notifications.jsonl" | grep -o '"eventType"' | wc -l)
echo "demo-stream: $n output rows; $events notification events in $DIR/notifications.jsonl"
tail -n 1 "$DIR/notifications.jsonl" | cut -c1-400
[ "$n" = "12" ] && [ "$events" -ge 12 ]
