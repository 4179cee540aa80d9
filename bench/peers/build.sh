#!/usr/bin/env bash
# Builds the C peers the benchmarks run beside our code: Open MPI programs (exchange latency) and
# the C/OpenMP reference kernels. Installs Debian's gcc and Open MPI first when they are absent.
# Output: bench/peers/build/<name>. Safe to run again (rebuilds only what changed).
set -euo pipefail
cd "$(dirname "$0")"
need=()
command -v mpicc >/dev/null 2>&1 || need+=(openmpi-bin libopenmpi-dev)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
bash ./install.sh ${need[@]+"${need[@]}"}
mkdir -p build
for source in *.c; do
  name=${source%.c}
  target=build/$name
  [ "$target" -nt "$source" ] && continue
  if grep -q '#include <mpi.h>' "$source"; then
    mpicc -O3 -march=native -o "$target" "$source"
  else
    gcc -O3 -march=native -fopenmp -o "$target" "$source" -lm
  fi
  echo "built $target" >&2
done
