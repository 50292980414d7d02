#!/bin/sh
# sluice-entrypoint - the image's entrypoint (docker/Dockerfile).
#
#   sluice-entrypoint mnode|vnode|snode [flags...]   start that daemon (as PID 1: SIGTERM
#                                                    from `docker stop` stops it cleanly)
#   sluice-entrypoint health                         `sluice-ROLE --health` with the same
#                                                    flags and environment (HEALTHCHECK)
#   sluice-entrypoint COMMAND [args...]              any other command, e.g. sluice, sh
#
# Settings come from SLUICE_* variables (every flag --foo-bar is SLUICE_FOO_BAR; flags win
# over the environment, which wins over a config file named by SLUICE_CONFIG). When
# SLUICE_DATA is not set, the data directory is /var/lib/sluice/ROLE, and for snodes
# /var/lib/sluice/snode-HOSTNAME: the replicas of a scaled snode service share one volume,
# each in its own directory, which it finds again when its container restarts.
set -e
state=/tmp/sluice-entrypoint.args

# The data directory of role $1 when SLUICE_DATA is not set.
default_data() {
  if [ -z "${SLUICE_DATA:-}" ]; then
    if [ "$1" = snode ]; then SLUICE_DATA="/var/lib/sluice/snode-$(hostname)"
    else SLUICE_DATA="/var/lib/sluice/$1"; fi
    export SLUICE_DATA
  fi
}

case "${1:-}" in
  mnode|vnode|snode)
    role="$1"
    shift
    default_data "$role"
    # Remember the role and flags for `health` (run later by docker exec, which sees the
    # container's environment but not this process's arguments).
    { printf '%s\n' "$role"; for a in "$@"; do printf '%s\n' "$a"; done; } > "$state"
    exec "sluice-$role" "$@"
    ;;
  health)
    [ -r "$state" ] || { echo "unhealthy: no daemon started by the entrypoint"; exit 1; }
    role="$(head -n 1 "$state")"
    default_data "$role"
    set --
    while IFS= read -r a; do set -- "$@" "$a"; done <<ARGS
$(tail -n +2 "$state")
ARGS
    [ $# -eq 1 ] && [ -z "$1" ] && set --
    exec "sluice-$role" "$@" --health
    ;;
  "")
    echo "usage: sluice-entrypoint mnode|vnode|snode [flags] | health | COMMAND [args]" >&2
    exit 2
    ;;
  *)
    exec "$@"
    ;;
esac
