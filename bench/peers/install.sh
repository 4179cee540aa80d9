#!/usr/bin/env bash
# Installs the named Debian packages (root, or sudo): the peers' toolchains and libraries.
set -euo pipefail
[ $# -gt 0 ] || exit 0
echo "installing: $*" >&2
export DEBIAN_FRONTEND=noninteractive
run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
run apt-get update -qq
run apt-get install -y -qq --no-install-recommends "$@" >/dev/null
