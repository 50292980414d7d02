#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, start a local cluster (one
# sluice-mnode, two sluice-vnode and two sluice-snode processes on loopback, data under
# ./sluice-local), run examples/quickstart.sql through the sluice CLI against it, then the
# stream demo (scripts/demo-stream.sh: a per-minute stream over generated meter readings,
# its output table and the WebSocket notifications a small receiver gets). The cluster
# keeps running afterwards; the last lines say how to connect and how to stop it.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${SLUICE_DIR:-./sluice-local}
PORT=${SLUICE_PORT:-6030}
scripts/install-deps.sh
scripts/build.sh
if scripts/sluice-local status --dir "$DIR" >/dev/null 2>&1; then
  echo "quickstart: using the cluster already running in $DIR"
else
  scripts/sluice-local up --dir "$DIR" --base-port "$PORT"
fi
build/bin/sluice -h 127.0.0.1 -P "$PORT" -f examples/quickstart.sql
# A stream end to end: per-minute output rows and WebSocket notifications.
scripts/demo-stream.sh --dir "$DIR" --port "$PORT" --notify-port "${SLUICE_NOTIFY_PORT:-6299}"
cat <<MSG

The cluster is running (data and logs in $DIR), with the stream demo.meters_1m and a
notification receiver writing to $DIR/notifications.jsonl.
  connect:  build/bin/sluice -h 127.0.0.1 -P $PORT
  status:   scripts/sluice-local status --dir $DIR
  stop:     scripts/sluice-local down --dir $DIR
  embedded: build/bin/sluice-demo   (the same engine in one process, no cluster)
MSG
