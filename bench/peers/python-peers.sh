#!/usr/bin/env bash
# Installs the Python peers the benchmarks run beside our code when Debian's Python lacks them:
# python3-sklearn (scikit-learn) and python3-rdkit (RDKit). Safe to run again.
set -euo pipefail
need=()
/usr/bin/python3 -c "import sklearn" >/dev/null 2>&1 || need+=(python3-sklearn)
/usr/bin/python3 -c "import rdkit" >/dev/null 2>&1 || need+=(python3-rdkit)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  run apt-get update -qq
  run apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
