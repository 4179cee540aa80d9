using Salsa.Ccr;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Fingerprints;

// Design: each cluster's statistics are computed whole by one rank (clusters cut into runs of equal
// cost, size + size²/2), which writes only that cluster's slots; the run's barrier after Compute
// publishes them. The sums inside a cluster run in member order, so they do not depend on the ranks.
/// <summary>Medoids and mean similarities of Butina clusters.</summary>
internal sealed class ButinaStatistics
{
    private readonly BinaryVectors _points;
    private readonly ButinaClusters _clusters;
    private readonly int _exactLimit;
    private readonly long[] _work;

    public ButinaStatistics(BinaryVectors points, ButinaClusters clusters, int exactLimit)
    {
        _points = points;
        _clusters = clusters;
        _exactLimit = exactLimit;
        _work = WorkSplit.Prefix(clusters.Count, c => Cost(clusters.Sizes[c], exactLimit));
        Medoids = new int[clusters.Count];
        MeanToCentroid = new double[clusters.Count];
        MeanPairwise = new double[clusters.Count];
    }

    public int[] Medoids { get; }

    public double[] MeanToCentroid { get; }

    public double[] MeanPairwise { get; }

    public void Compute(Communicator comm, CancellationToken cancellationToken)
    {
        var (first, end) = WorkSplit.Range(_work, comm.Rank, comm.Size);
        var totals = new double[Math.Min(_exactLimit, MaxSize(first, end))];
        for (var c = first; c < end; c++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            Compute(c, totals);
        }
    }

    private void Compute(int cluster, double[] totals)
    {
        var members = _clusters.MembersOf(cluster);
        var centroid = members[0];
        Medoids[cluster] = centroid;
        if (members.Length == 1)
        {
            MeanToCentroid[cluster] = 1;
            MeanPairwise[cluster] = 1;
            return;
        }

        var toCentroid = 0.0;
        for (var m = 1; m < members.Length; m++)
        {
            toCentroid += Tanimoto.Similarity(_points, centroid, members[m]);
        }

        MeanToCentroid[cluster] = toCentroid / (members.Length - 1);
        if (members.Length > _exactLimit)
        {
            MeanPairwise[cluster] = double.NaN;
            return;
        }

        var total = totals.AsSpan(0, members.Length);
        total.Clear();
        var pairSum = 0.0;
        for (var a = 0; a < members.Length; a++)
        {
            for (var b = a + 1; b < members.Length; b++)
            {
                var s = Tanimoto.Similarity(_points, members[a], members[b]);
                total[a] += s;
                total[b] += s;
                pairSum += s;
            }
        }

        var best = 0;
        for (var a = 1; a < members.Length; a++)
        {
            if (total[a] > total[best] || (total[a] == total[best] && members[a] < members[best]))
            {
                best = a;
            }
        }

        Medoids[cluster] = members[best];
        MeanPairwise[cluster] = pairSum / ((double)members.Length * (members.Length - 1) / 2);
    }

    private int MaxSize(int first, int end)
    {
        var max = 0;
        for (var c = first; c < end; c++)
        {
            max = Math.Max(max, _clusters.Sizes[c]);
        }

        return max;
    }

    private static long Cost(int size, int exactLimit) => size + (size <= exactLimit ? (long)size * (size - 1) / 2 : 0);
}
