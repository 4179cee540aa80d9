#!/usr/bin/env bash
# Installs the Python peers the benchmarks run beside our code when Debian's Python lacks them:
# python3-sklearn (scikit-learn) and python3-rdkit (RDKit). Safe to run again.
set -euo pipefail
need=()
/usr/bin/python3 -c "import sklearn" >/dev/null 2>&1 || need+=(python3-sklearn)
/usr/bin/python3 -c "import rdkit" >/dev/null 2>&1 || need+=(python3-rdkit)
bash "$(dirname "$0")/install.sh" ${need[@]+"${need[@]}"}
