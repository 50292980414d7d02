#!/usr/bin/env bash
# run.sh - ctest's docker_compose test (tests/docker/CMakeLists.txt): runs test_compose.py
# when a Docker engine answers and docker-compose is installed, and says clearly why not
# otherwise (exit 77, which ctest reports as "Skipped").
#
#   tests/docker/run.sh PYTHON
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="${1:-python3}"
compose="${SLUICE_COMPOSE:-docker-compose}"
if ! command -v docker >/dev/null 2>&1; then
  echo "SKIPPED docker_compose: no docker command on this machine"
  exit 77
fi
if ! timeout 60 docker info >/dev/null 2>&1; then
  echo "SKIPPED docker_compose: no Docker engine answers ('docker info' failed)"
  exit 77
fi
if ! $compose version >/dev/null 2>&1; then
  echo "SKIPPED docker_compose: '$compose' does not run (install docker-compose, or set SLUICE_COMPOSE)"
  exit 77
fi
echo "docker_compose: engine $(docker version -f '{{.Server.Version}}' 2>/dev/null), $($compose version --short 2>/dev/null || $compose version | head -1)"
exec "$py" -m pytest -q -s -p no:cacheprovider "$here/test_compose.py"
