#!/usr/bin/env bash
# Installs the Debian 12 packages Sluice builds, tests and runs with. Idempotent: when every
# package is already present it does nothing, so both Quick start commands can call it.
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build pkg-config git
  libuv1-dev libnng-dev libprotobuf-c-dev protobuf-c-compiler librocksdb-dev
  libwebsockets-dev libcmocka-dev libxxhash-dev libreadline-dev
  clang libclang-rt-14-dev
  python3 python3-pytest python3-websockets sqlite3
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
