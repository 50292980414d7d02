#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, start a local cluster (one
# sluice-mnode and two sluice-vnode processes on loopback, data under ./sluice-local),
# and run examples/quickstart.sql through the sluice CLI against it. The cluster keeps
# running afterwards; the last lines say how to connect and how to stop it.
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
cat <<MSG

The cluster is running (data and logs in $DIR).
  connect:  build/bin/sluice -h 127.0.0.1 -P $PORT
  status:   scripts/sluice-local status --dir $DIR
  stop:     scripts/sluice-local down --dir $DIR
  embedded: build/bin/sluice-demo   (the same engine in one process, no cluster)
MSG
