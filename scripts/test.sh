#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run the whole test suite:
#  1. the normal build (warnings are errors) and every ctest test;
#  2. a second build under AddressSanitizer + UndefinedBehaviorSanitizer, every test again;
#  3. a short libFuzzer run of every fuzz target over its corpus (clang builds).
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
FUZZ_SECONDS=${FUZZ_SECONDS:-20}

scripts/install-deps.sh

echo "== build (RelWithDebInfo)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_WERROR=ON >/dev/null
ninja -C build -j "$JOBS"
echo "== tests"
ctest --test-dir build --output-on-failure -j "$JOBS"

echo "== build (ASan + UBSan)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSLUICE_SANITIZE=ON -DSLUICE_WERROR=ON >/dev/null
ninja -C build-asan -j "$JOBS"
echo "== tests under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS"

echo "== fuzz (${FUZZ_SECONDS}s per target)"
CC=clang cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSLUICE_FUZZ=ON >/dev/null
ninja -C build-fuzz -j "$JOBS"
for f in build-fuzz/bin/fuzz_*; do
  name=$(basename "$f")
  corpus=tests/fuzz/corpus/${name#fuzz_}
  work=$(mktemp -d)
  [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
  echo "-- $name"
  "$f" -max_total_time="$FUZZ_SECONDS" -print_final_stats=0 "$work" 2>&1 | tail -n 3
  rm -rf "$work"
done
echo "== all tests passed"
