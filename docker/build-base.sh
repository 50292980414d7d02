#!/usr/bin/env bash
# build-base.sh - make sure the Docker engine has the `debian:bookworm-slim` base image that
# docker/Dockerfile starts from, building it locally when it is missing.
#
# Anywhere with a registry, `docker build` pulls the official image and this script is not
# needed. On a machine whose engine has no registry (and starts with no images) it builds
# an equivalent image: debootstrap --variant=minbase of Debian 12 "bookworm" from the
# package mirror apt is configured with here (read from /etc/apt/sources.list and
# /etc/apt/sources.list.d/), trimmed like the official slim image (no docs, man pages or
# locales, and a dpkg filter that keeps later installs free of them), then `docker import`.
# The image's own apt sources name the same mirror, so `apt-get` inside `docker build`
# reaches it too.
#
#   docker/build-base.sh [--force]     # --force: rebuild even when the image exists
#
# Needs root (debootstrap) and installs debootstrap with apt-get when it is missing.
# Environment: SLUICE_BASE_IMAGE (default debian:bookworm-slim), SLUICE_DEBIAN_MIRROR and
# SLUICE_DEBIAN_SECURITY_MIRROR override the mirrors found in apt's configuration.
set -euo pipefail

IMAGE="${SLUICE_BASE_IMAGE:-debian:bookworm-slim}"
SUITE=bookworm
force=0
case "${1:-}" in
  --force) force=1 ;;
  "") ;;
  -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "build-base: unknown option '$1'" >&2; exit 2 ;;
esac

if [ $force = 0 ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "build-base: $IMAGE is present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "build-base: building $IMAGE needs root (debootstrap); run it with sudo" >&2
  exit 1
fi

# The mirrors apt uses here: the first URI that serves the suite (and, for security
# updates, the first that serves SUITE-security), from one-line and deb822 sources.
find_uri() {
  local want="$1" f
  {
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -r "$f" ] || continue
      # deb [options] URI SUITE COMPONENTS...
      sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk -v s="$want" '$1 == "deb" && $3 == s {print $2}'
    done
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -r "$f" ] || continue
      # Stanzas separated by blank lines with URIs: and Suites: fields.
      awk -v s="$want" '
        /^[[:space:]]*#/ {next}
        /^[[:space:]]*$/ {if (u != "" && hit) print u; u = ""; hit = 0; next}
        tolower($1) == "uris:" {u = $2}
        tolower($1) == "suites:" {for (i = 2; i <= NF; i++) if ($i == s) hit = 1}
        tolower($1) == "enabled:" && tolower($2) == "no" {hit = 0}
        END {if (u != "" && hit) print u}' "$f"
    done
  } | grep -E '^https?://' | head -1
}

MIRROR="${SLUICE_DEBIAN_MIRROR:-$(find_uri "$SUITE" || true)}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
SECURITY="${SLUICE_DEBIAN_SECURITY_MIRROR:-$(find_uri "$SUITE-security" || true)}"
echo "build-base: building $IMAGE from $MIRROR (security: ${SECURITY:-none})"

if ! command -v debootstrap >/dev/null 2>&1; then
  echo "build-base: installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap \
    || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
           --no-install-recommends debootstrap; }
fi

root="$(mktemp -d /var/tmp/sluice-base.XXXXXX)"
cleanup() { rm -rf --one-file-system "$root"; }
trap cleanup EXIT

keyring=()
[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] &&
  keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)
start=$SECONDS
debootstrap --variant=minbase "${keyring[@]}" "$SUITE" "$root" "$MIRROR" \
  > "$root.log" 2>&1 || {
  echo "build-base: debootstrap failed; last lines of $root.log:" >&2
  tail -20 "$root.log" >&2
  exit 1
}
rm -f "$root.log"

# apt sources of the image: the same mirrors, deb822 as in the official image.
rm -f "$root/etc/apt/sources.list"
{
  printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\n' \
    "$MIRROR" "$SUITE" "$SUITE"
  printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
  if [ -n "$SECURITY" ]; then
    printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\n' "$SECURITY" "$SUITE"
    printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
  fi
} > "$root/etc/apt/sources.list.d/debian.sources"
# A mirror that serves a fixed snapshot has Release files past their Valid-Until date: carry
# over the host's settings for that, when it has them.
if apt-config dump 2>/dev/null | grep -q '^Acquire::Check-Valid-Until "false"'; then
  printf 'Acquire::Check-Valid-Until "false";\nAcquire::Check-Date "false";\n' \
    > "$root/etc/apt/apt.conf.d/99sluice-mirror"
fi

# Slim, as the official image: no docs, man pages, locales; apt keeps no caches.
cat > "$root/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
EOF
cat > "$root/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
printf 'Acquire::Languages "none";\n' > "$root/etc/apt/apt.conf.d/docker-no-languages"
printf 'APT::Install-Recommends "false";\n' > "$root/etc/apt/apt.conf.d/docker-no-recommends"
find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete 2>/dev/null || true
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null || true
rm -rf "$root"/usr/share/{man,groff,info,lintian,linda,locale}/* \
  "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/cache/debconf/*-old \
  "$root"/var/log/*.log "$root"/var/log/apt/* "$root"/tmp/* "$root"/root/.bash_history
# The container engine provides these; leave no host values in the image.
: > "$root/etc/resolv.conf"
: > "$root/etc/hostname"
rm -f "$root/etc/machine-id" && : > "$root/etc/machine-id"

tar --numeric-owner --xattrs -C "$root" -c . |
  docker import --change 'CMD ["bash"]' --change 'ENV LANG=C.UTF-8' - "$IMAGE" >/dev/null
echo "build-base: $IMAGE built in $((SECONDS - start)) s ($(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}'))"
