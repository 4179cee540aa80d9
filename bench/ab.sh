#!/usr/bin/env bash
# Before and after in the same run: builds the benchmarks at a base commit and at the working tree,
# runs the named experiments of both builds alternately (base, head, base, head, …) so that both see
# the same machine state, and writes the medians of every metric and their ratios (head ÷ base).
#
#   bench/ab.sh <base-commit> <rounds> <experiment>... [-- <experiment options, e.g. --quick>]
#   bench/ab.sh 9f57572 5 exchange-latency ccr-stages -- --quick
#
# Output: bench/results/ab-<experiments>.md (and the raw runs under a temporary folder it names).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
base=$1 rounds=$2
shift 2
experiments=() options=()
while [[ $# -gt 0 ]]; do
  if [[ $1 == -- ]]; then shift; options=("$@"); break; fi
  experiments+=("$1"); shift
done

work=$(mktemp -d /tmp/salsa-ab.XXXXXX)
echo "ab: base $base, working tree $(git -C "$root" rev-parse --short HEAD)+changes; runs in $work"
git -C "$root" worktree add --detach "$work/base-src" "$base" > /dev/null
trap 'git -C "$root" worktree remove --force "$work/base-src" > /dev/null 2>&1 || true' EXIT

# Each side's binaries under its own source tree (bin/ is ignored): an experiment that builds its
# peers finds the repository above its binaries.
base_bin=$work/base-src/bench/Salsa.Bench/bin/ab
head_bin=$root/bench/Salsa.Bench/bin/ab-head
dotnet build "$work/base-src/bench/Salsa.Bench" -c Release -o "$base_bin" -v quiet -nologo > "$work/base-build.log"
dotnet build "$root/bench/Salsa.Bench" -c Release -o "$head_bin" -v quiet -nologo > "$work/head-build.log"

for round in $(seq 1 "$rounds"); do
  for side in base head; do
    # Each side reads the repository's own data folder; the base worktree has its own copy.
    src=$root; [[ $side == base ]] && src=$work/base-src
    echo "ab: round $round/$rounds, $side"
    bin=$base_bin; [[ $side == head ]] && bin=$head_bin
    (cd "$src" && SALSA_DATA="$src/data" dotnet "$bin/Salsa.Bench.dll" "${experiments[@]}" "${options[@]}" \
      --out "$work/$side-$round" > "$work/$side-$round.log" 2>&1)
  done
done

name=$(IFS=-; echo "${experiments[*]}")
python3 "$root/bench/ab-summary.py" "$work" "$base" "$rounds" "${options[*]:-}" "${experiments[@]}" > "$root/bench/results/ab-$name.md"
echo "ab: wrote bench/results/ab-$name.md"
