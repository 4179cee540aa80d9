#!/usr/bin/env python3
"""The references beside Salsa.Clustering, run by the clustering-peers experiment (Debian's
python3-sklearn and python3-rdkit). Prints one JSON object.

    kmeans POINTS.csv K [RUNS]     scikit-learn KMeans (Lloyd) on weighted points (x,y,weight rows):
                                   greedy k-means++ seeding, the marginal Lloyd iteration, the best and
                                   median of 10 single runs (n_init=1, seeds 0-9), and the costs of
                                   RUNS single runs (seeds 0 to RUNS-1, default 10)
    butina FINGERPRINTS.hex CUTOFF...
                                   RDKit Butina.ClusterData on 1 - BulkTanimotoSimilarity of the
                                   fingerprints (one hex line each, bit i in byte i/8, lowest bit first),
                                   once per cut-off on the same distances
    reference COMPOUNDS.csv[.gz] COUNT CUTOFF
                                   RDKit's clusters of the first COUNT compounds' ecfp4_1024_hex column,
                                   as text: one line per cluster, its members centroid first (the
                                   references of the Butina tests, tests/Salsa.Clustering.Tests/References)
    mds MATRIX.f64 N               scikit-learn MDS (metric SMACOF, dissimilarity="precomputed", its
                                   defaults otherwise) on an N x N matrix of little-endian doubles:
                                   seconds, its coordinates and the raw stress it reports
"""
import array
import csv
import gzip
import json
import sys
import time


def kmeans(path, k, runs):
    import numpy as np
    import sklearn
    from sklearn.cluster import KMeans, kmeans_plusplus

    data = np.loadtxt(path, delimiter=",")
    x, w = np.ascontiguousarray(data[:, :2]), np.ascontiguousarray(data[:, 2])

    def fit(iterations, seed, tol):
        model = KMeans(n_clusters=k, init="k-means++", n_init=1, max_iter=iterations, tol=tol,
                       algorithm="lloyd", random_state=seed)
        start = time.perf_counter()
        model.fit(x, sample_weight=w)
        return time.perf_counter() - start, model

    fit(2, 0, 0)  # warm-up (thread pool, caches)
    seeding = []
    for seed in range(3):
        start = time.perf_counter()
        kmeans_plusplus(x, k, random_state=seed)  # greedy, 2 + ln k trials; sklearn 1.2 seeds without the weights
        seeding.append(time.perf_counter() - start)
    # The marginal iteration, seed by seed: (time of 41 iterations - time of 1) / (iterations run - 1);
    # a run whose labels stop changing ends early (n_iter_ says when).
    marginal = []
    for seed in range(3):
        one, _ = fit(1, seed, 0)
        many, model = fit(41, seed, 0)
        if model.n_iter_ > 1:
            marginal.append((many - one) / (model.n_iter_ - 1))

    # Best of 10 as a user runs it: n_init=1, seeds 0-9, the defaults otherwise (max_iter 300, tol 1e-4);
    # then seeds 10-49, for the spread of best-of-10 over five sets of seeds.
    seconds, costs = 0.0, []
    for seed in range(runs):
        elapsed, model = fit(300, seed, 1e-4)
        seconds += elapsed if seed < 10 else 0.0
        costs.append(float(model.inertia_))
    return {
        "sklearn": sklearn.__version__,
        "seeding_seconds": sorted(seeding)[1],
        "lloyd_iteration_seconds": float(np.median(marginal)) if marginal else float("nan"),
        "best10_seconds": seconds,
        "best10_cost": min(costs[:10]),
        "median_cost": float(np.median(costs[:10])),
        "costs": costs,
    }


def fingerprints(hex_lines):
    from rdkit import DataStructs

    fps = []
    for line in hex_lines:
        data = bytes.fromhex(line.strip())
        bits = DataStructs.ExplicitBitVect(len(data) * 8)
        for byte, value in enumerate(data):
            for bit in range(8):
                if value >> bit & 1:
                    bits.SetBit(byte * 8 + bit)
        fps.append(bits)
    return fps


def distances(fps):
    """The recipe of RDKit's documentation: the lower triangle of 1 - Tanimoto, row by row."""
    from rdkit import DataStructs

    result = array.array("d")
    for i in range(1, len(fps)):
        similarities = DataStructs.BulkTanimotoSimilarity(fps[i], fps[:i])
        result.extend([1 - s for s in similarities])
    return result


def butina(path, cutoffs):
    from rdkit import rdBase
    from rdkit.ML.Cluster import Butina

    fps = fingerprints(open(path))
    n = len(fps)
    start = time.perf_counter()
    triangle = distances(fps)
    distance_seconds = time.perf_counter() - start

    answers = []
    for cutoff in cutoffs:
        start = time.perf_counter()
        clusters = Butina.ClusterData(triangle, n, cutoff, isDistData=True)
        answers.append({
            "cutoff": cutoff,
            "cluster_seconds": time.perf_counter() - start,
            "clusters": [list(members) for members in clusters],
        })
    return {
        "rdkit": rdBase.rdkitVersion,
        "compounds": n,
        "distance_seconds": distance_seconds,
        "distance_bytes": triangle.itemsize * len(triangle),
        "cutoffs": answers,
    }


def mds(path, n):
    import numpy as np
    import sklearn
    from sklearn.manifold import MDS

    matrix = np.fromfile(path, dtype="<f8").reshape(n, n)
    model = MDS(n_components=2, dissimilarity="precomputed", metric=True, random_state=0)
    start = time.perf_counter()
    coordinates = model.fit_transform(matrix)
    seconds = time.perf_counter() - start
    return {
        "version": sklearn.__version__,
        "seconds": seconds,
        "n_init": model.n_init,
        "max_iter": model.max_iter,
        "iterations": int(model.n_iter_),
        "stress": float(model.stress_),
        "coordinates": coordinates.ravel().tolist(),
    }


def reference(path, count, cutoff):
    from rdkit import rdBase
    from rdkit.ML.Cluster import Butina

    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as file:
        rows = [row["ecfp4_1024_hex"] for _, row in zip(range(count), csv.DictReader(file))]
    fps = fingerprints(rows)
    clusters = Butina.ClusterData(distances(fps), len(fps), cutoff, isDistData=True)
    print(f"# RDKit {rdBase.rdkitVersion} Butina.ClusterData, first {len(fps)} compounds of {path.split('/')[-1]}, ECFP4, "
          f"distance cut-off {cutoff}: {len(clusters)} clusters, members centroid first")
    for members in clusters:
        print(" ".join(str(m) for m in members))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "kmeans":
        answer = kmeans(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 10)
    elif mode == "butina":
        answer = butina(sys.argv[2], [float(c) for c in sys.argv[3:]])
    elif mode == "mds":
        answer = mds(sys.argv[2], int(sys.argv[3]))
    elif mode == "reference":
        reference(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        sys.exit(0)
    else:
        sys.exit(f"unknown mode {mode}")
    print(json.dumps(answer))
