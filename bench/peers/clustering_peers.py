#!/usr/bin/env python3
"""The references beside Salsa.Clustering, run by the clustering-peers experiment (Debian's
python3-sklearn and python3-rdkit). Prints one JSON object.

    kmeans POINTS.csv K            scikit-learn KMeans (Lloyd) on weighted points (x,y,weight rows):
                                   k-means++ seeding, the marginal Lloyd iteration, best of 10 restarts
    butina FINGERPRINTS.hex CUTOFF RDKit Butina.ClusterData on 1 - BulkTanimotoSimilarity of the
                                   fingerprints (one hex line each, bit i in byte i/8, lowest bit first)
"""
import array
import json
import sys
import time


def kmeans(path, k):
    import numpy as np
    import sklearn
    from sklearn.cluster import KMeans, kmeans_plusplus

    data = np.loadtxt(path, delimiter=",")
    x, w = np.ascontiguousarray(data[:, :2]), np.ascontiguousarray(data[:, 2])

    def fit(iterations, restarts=1, seed=0):
        model = KMeans(n_clusters=k, init="k-means++", n_init=restarts, max_iter=iterations, tol=0,
                       algorithm="lloyd", random_state=seed)
        start = time.perf_counter()
        model.fit(x, sample_weight=w)
        return time.perf_counter() - start, model

    fit(2)  # warm-up (thread pool, caches)
    seeding = []
    for seed in range(3):
        start = time.perf_counter()
        kmeans_plusplus(x, k, random_state=seed)  # sklearn 1.2 seeds without weights
        seeding.append(time.perf_counter() - start)
    one = sorted(fit(1, seed=s)[0] for s in range(3))[1]
    many = sorted(fit(21, seed=s)[0] for s in range(3))[1]
    seconds, best = fit(300, restarts=10)
    return {
        "sklearn": sklearn.__version__,
        "seeding_seconds": sorted(seeding)[1],
        "lloyd_iteration_seconds": (many - one) / 20,
        "best10_seconds": seconds,
        "best10_cost": float(best.inertia_),
    }


def butina(path, cutoff):
    from rdkit import DataStructs, rdBase
    from rdkit.ML.Cluster import Butina

    fps = []
    for line in open(path):
        data = bytes.fromhex(line.strip())
        bits = DataStructs.ExplicitBitVect(len(data) * 8)
        for byte, value in enumerate(data):
            for bit in range(8):
                if value >> bit & 1:
                    bits.SetBit(byte * 8 + bit)
        fps.append(bits)
    n = len(fps)

    # The recipe of RDKit's documentation: the lower triangle of 1 - Tanimoto, row by row.
    start = time.perf_counter()
    distances = array.array("d")
    for i in range(1, n):
        similarities = DataStructs.BulkTanimotoSimilarity(fps[i], fps[:i])
        distances.extend([1 - s for s in similarities])
    distance_seconds = time.perf_counter() - start

    start = time.perf_counter()
    clusters = Butina.ClusterData(distances, n, cutoff, isDistData=True)
    cluster_seconds = time.perf_counter() - start

    centroid = [0] * n
    for members in clusters:
        for member in members:
            centroid[member] = members[0]
    return {
        "rdkit": rdBase.rdkitVersion,
        "compounds": n,
        "distance_seconds": distance_seconds,
        "cluster_seconds": cluster_seconds,
        "distance_bytes": distances.itemsize * len(distances),
        "clusters": len(clusters),
        "centroids": centroid,
    }


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "kmeans":
        answer = kmeans(sys.argv[2], int(sys.argv[3]))
    elif mode == "butina":
        answer = butina(sys.argv[2], float(sys.argv[3]))
    else:
        sys.exit(f"unknown mode {mode}")
    print(json.dumps(answer))
