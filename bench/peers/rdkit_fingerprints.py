#!/usr/bin/env python3
"""The reference beside Salsa.Chemistry: RDKit itself (Debian's python3-rdkit, native C++), computing
ECFP4 (Morgan radius 2, 1,024 bits) and MACCS fingerprints of SMILES read from a file (or stdin), one per line,
on N worker processes. Prints one JSON line: the RDKit version, compounds, failures, seconds of the
fingerprinting (the pool's start excluded), and the fingerprints as hex in the shipped data's bit
order (bit i in byte i / 8, least significant first) when --hex is given.

    /usr/bin/python3 bench/peers/rdkit_fingerprints.py --workers 2 smiles.txt
"""
import argparse
import json
import multiprocessing
import sys
import time

from rdkit import Chem, RDLogger, rdBase
from rdkit.Chem import AllChem, MACCSkeys

RDLogger.DisableLog("rdApp.*")


def pack(bits):
    data = bytearray((bits.GetNumBits() + 7) // 8)
    for bit in bits.GetOnBits():
        data[bit // 8] |= 1 << (bit % 8)
    return data.hex()


def fingerprints(chunk):
    out = []
    for smiles in chunk:
        molecule = Chem.MolFromSmiles(smiles)
        if molecule is None:
            out.append(None)
            continue
        out.append((pack(AllChem.GetMorganFingerprintAsBitVect(molecule, 2, nBits=1024)), pack(MACCSkeys.GenMACCSKeys(molecule))))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--hex", action="store_true")
    parser.add_argument("input", nargs="?", help="a file of SMILES, one per line (default: stdin)")
    args = parser.parse_args()
    with (open(args.input, encoding="utf-8") if args.input else sys.stdin) as lines:
        smiles = [line.strip() for line in lines if line.strip()]
    chunks = [smiles[i:i + 256] for i in range(0, len(smiles), 256)]
    with multiprocessing.Pool(args.workers) as pool:
        pool.map(fingerprints, [["C"]] * args.workers)  # the workers started and RDKit loaded
        start = time.perf_counter()
        results = [r for chunk in pool.map(fingerprints, chunks, chunksize=1) for r in chunk]
        seconds = time.perf_counter() - start
    answer = {
        "rdkit": rdBase.rdkitVersion,
        "compounds": len(smiles),
        "failures": sum(r is None for r in results),
        "seconds": seconds,
    }
    if args.hex:
        answer["hex"] = [r and list(r) for r in results]
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
