#!/usr/bin/env bash
# build-image.sh - build the Sluice image (docker/Dockerfile) from this work tree.
#
#   docker/build-image.sh [TAG]        # default: $SLUICE_IMAGE or sluice:latest
#
# First makes sure the base image exists (docker/build-base.sh: on an engine without a
# registry it builds debian:bookworm-slim locally), then runs
#   docker build -f docker/Dockerfile -t TAG --build-arg JOBS=$JOBS <repository root>
# JOBS (default 2) is the build parallelism inside the image build. The apt layer of the
# build stage comes before the sources are copied, so a rebuild after a source change
# reuses it and only compiles. Prints the build time.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tag="${1:-${SLUICE_IMAGE:-sluice:latest}}"
"$here/docker/build-base.sh"
start=$SECONDS
docker build --force-rm -f "$here/docker/Dockerfile" -t "$tag" --build-arg "JOBS=${JOBS:-2}" "$here"
echo "build-image: $tag built in $((SECONDS - start)) s"
