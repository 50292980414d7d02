#!/usr/bin/env bash
# Configures and builds Sluice into build/ (RelWithDebInfo), binaries in build/bin/.
# Usage: scripts/build.sh [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_WERROR=ON "$@" >/dev/null
ninja -C build
