#!/usr/bin/env bash
# How fast is the pinned RDKit's own C++ on this machine? RDKit 2026.09.1 (the release MinimalLib
# pins) as Debian sid builds it cannot load into a Debian 12 process (it needs glibc >= 2.38 and
# libstdc++ >= 14), so its libraries, sid's C and C++ runtimes and its loader are unpacked into a
# folder and a bare loop (rdkit_native_worker.cpp) runs under that loader. The same loop against
# the system's RDKit (librdkit-dev, 2022.09.3) and python3-rdkit run beside it on the same SMILES,
# one core each, in turns. Prints seconds per run; checks the 2026.09.1 bits against the shipped ones.
# Usage: bench/peers/rdkit_native_pinned.sh [compounds (default 10000)] [rounds (default 3)]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
count=${1:-10000}
rounds=${2:-3}
work=${SALSA_RDKIT_SID:-$root/.salsa/rdkit-2026.09.1-sid}
mirror=http://deb.debian.org/debian
mkdir -p "$work/debs" "$work/root"
for deb in pool/main/g/glibc/libc6_2.43-7_amd64.deb pool/main/g/gcc-16/libstdc++6_16.2.0-4_amd64.deb \
    pool/main/g/gcc-16/libgcc-s1_16.2.0-4_amd64.deb pool/main/b/boost1.92/libboost-serialization1.92.0_1.92.0-4+b1_amd64.deb \
    pool/main/b/boost1.92/libboost1.92-dev_1.92.0-4+b1_amd64.deb pool/main/r/ringdecomposerlib/libringdecomposerlib-dev_1.1.3-2_amd64.deb \
    pool/main/r/rdkit/librdkit1t64_202609.1-1+b1_amd64.deb pool/main/r/rdkit/librdkit-dev_202609.1-1+b1_amd64.deb; do
  file="$work/debs/$(basename "$deb")"
  [ -s "$file" ] || curl -fsS -o "$file" "$mirror/$deb" || { echo "cannot fetch $mirror/$deb (sid moves on: look the package up in $mirror/dists/sid/main/binary-amd64/Packages.xz)" >&2; exit 1; }
  dpkg-deb -x "$file" "$work/root"
done
sid="$work/root"
g++ -std=c++20 -O2 -I "$sid/usr/include/rdkit" -I "$sid/usr/include" "$here/rdkit_native_worker.cpp" -o "$work/worker-2026" \
  -L "$sid/usr/lib" -L "$sid/usr/lib/x86_64-linux-gnu" -lRDKitFingerprints -lRDKitSubstructMatch -lRDKitSmilesParse -lRDKitGraphMol -lRDKitDataStructs -lRDKitRDGeneral -Wl,--allow-shlib-undefined
g++ -std=c++17 -O2 -I /usr/include/rdkit "$here/rdkit_native_worker.cpp" -o "$work/worker-2022" \
  -lRDKitFingerprints -lRDKitSubstructMatch -lRDKitSmilesParse -lRDKitGraphMol -lRDKitDataStructs -lRDKitRDGeneral
run2026() { "$sid/usr/lib64/ld-linux-x86-64.so.2" --library-path "$sid/usr/lib:$sid/usr/lib/x86_64-linux-gnu" "$work/worker-2026"; }
zcat "$root/data/chem/compounds_40k.csv.gz" | awk -v n="$count" 'NR > 1 && NR <= n + 1' > "$work/compounds.csv"
cut -d, -f2 "$work/compounds.csv" > "$work/smiles.txt"
echo "RDKit $(run2026 < /dev/null 2>&1 >/dev/null) C++ from sid: $(run2026 < "$work/smiles.txt" 2>/dev/null | paste -d'|' - <(awk -F, '{print $3" "$4}' "$work/compounds.csv") | awk -F'|' '$1!=$2{d++} END{print d+0}') of $count compounds differ from the shipped bits"
seconds() { local start end; start=$(date +%s%N); "$@" > /dev/null 2>&1; end=$(date +%s%N); printf '%d.%02d' $(((end - start) / 1000000000)) $(((end - start) / 10000000 % 100)); }
for round in $(seq "$rounds"); do
  echo "round $round: RDKit 2026.09.1 C++ $(seconds run2026 < "$work/smiles.txt") s; RDKit 2022.09.3 C++ $(seconds "$work/worker-2022" < "$work/smiles.txt") s; python3-rdkit 2022.09.3 $(/usr/bin/python3 "$here/rdkit_fingerprints.py" --workers 1 "$work/smiles.txt" | /usr/bin/python3 -c 'import json,sys; print(round(json.load(sys.stdin)["seconds"], 2))') s"
done
