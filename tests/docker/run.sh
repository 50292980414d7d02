#!/usr/bin/env bash
# run.sh - ctest's docker_compose tests (tests/docker/CMakeLists.txt): runs test_compose.py
# when a Docker engine answers and docker-compose is installed, and says clearly why not
# otherwise (exit 77, which ctest reports as "Skipped").
#
#   tests/docker/run.sh PYTHON             with the machine's docker-compose (or SLUICE_COMPOSE)
#   tests/docker/run.sh PYTHON v2 DIR      with Compose v2, fetched into DIR (compose-v2.sh)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="${1:-python3}"
name=docker_compose
compose="${SLUICE_COMPOSE:-docker-compose}"
if ! command -v docker >/dev/null 2>&1; then
  echo "SKIPPED $name: no docker command on this machine"
  exit 77
fi
if ! timeout 60 docker info >/dev/null 2>&1; then
  echo "SKIPPED $name: no Docker engine answers ('docker info' failed)"
  exit 77
fi
if [ "${2:-}" = v2 ]; then
  name=docker_compose_v2
  if ! compose="$("$here/compose-v2.sh" "$3")"; then
    echo "SKIPPED $name: Compose v2 could not be fetched from Debian (above)"
    exit 77
  fi
  export SLUICE_COMPOSE="$compose"
fi
if ! $compose version >/dev/null 2>&1; then
  echo "SKIPPED $name: '$compose' does not run (install docker-compose, or set SLUICE_COMPOSE)"
  exit 77
fi
echo "$name: engine $(docker version -f '{{.Server.Version}}' 2>/dev/null), $($compose version --short 2>/dev/null || $compose version | head -1)"
exec "$py" -m pytest -q -s -p no:cacheprovider "$here/test_compose.py"
