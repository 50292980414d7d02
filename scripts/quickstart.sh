#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and run the main job.
# Until the daemons exist this is the embedded demo: it loads generated meter rows into an
# in-process Sluice store and runs queries over them through the real SQL front end,
# planner and executor.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/bin/sluice-demo "$@"
