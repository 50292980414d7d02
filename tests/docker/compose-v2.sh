#!/usr/bin/env bash
# compose-v2.sh DIR - prints the path of a Compose v2 `docker-compose`, fetched into DIR from
# Debian when it is not there yet; exits non-zero (with the reason on stderr) when it
# cannot be had.
#
# Debian 12 packages only docker-compose 1.29 (Python). Debian 13 (trixie) packages Compose
# v2 (docker-compose 2.x): a Go program that needs nothing but libc, so its binary runs on
# Debian 12 as it is. It is downloaded with apt (the package's signature checked against
# debian-archive-keyring, as for every package) from a sources list of its own, and
# unpacked into DIR: nothing is installed, the machine's docker-compose 1.29 stays.
set -euo pipefail
dir="$1"
bin="$dir/usr/libexec/docker/cli-plugins/docker-compose"
if [ -x "$bin" ] && "$bin" version >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi
mkdir -p "$dir"
tmp="$(mktemp -d "$dir/apt.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
  > "$tmp/sources.list"
apt_opts=(-q -o "Dir::Etc::SourceList=$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache"
          -o APT::Sandbox::User=root)
if ! timeout 600 apt-get "${apt_opts[@]}" update >"$tmp/log" 2>&1; then
  echo "cannot read Debian trixie's package lists:" >&2
  tail -5 "$tmp/log" >&2
  exit 1
fi
if ! (cd "$tmp" && timeout 600 apt-get "${apt_opts[@]}" download docker-compose >>"$tmp/log" 2>&1); then
  echo "cannot download trixie's docker-compose:" >&2
  tail -5 "$tmp/log" >&2
  exit 1
fi
dpkg-deb -x "$tmp"/docker-compose_*.deb "$dir"
"$bin" version >/dev/null
echo "$bin"
