using Salsa.Ccr;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Partitions;

/// <summary>
/// A dataset's partition grid in this process, each partition on all cores in turn: the
/// single-machine run of the same grid a cluster computes, and so its reference.
/// </summary>
public sealed class LocalPartitions : IKMeansGrid, IDisposable
{
    private readonly DensePartition[] _partitions;
    private readonly Lazy<KMeansPartition[]> _kmeans;
    private readonly ParallelismOptions _parallel;
    private readonly Dispatcher? _owned;

    public LocalPartitions(DenseVectors points, int partitions, ParallelismOptions? parallel = null)
    {
        ArgumentNullException.ThrowIfNull(points);
        if (partitions < 1 || partitions > points.Count)
        {
            throw new ClusteringInputException($"{points.Count} points cannot make {partitions} partitions.", nameof(partitions));
        }

        _partitions = [.. Enumerable.Range(0, partitions).Select(p =>
        {
            var (start, end) = DensePartition.Rows(points.Count, p, partitions);
            return new DensePartition(points.Slice(start, end));
        })];
        _parallel = parallel ?? new ParallelismOptions();
        if (_parallel.Dispatcher is null && _parallel.Ranks > 1)
        {
            _owned = new Dispatcher(new DispatcherOptions { ThreadCount = _parallel.Ranks, Name = "Salsa partitions" });
            _parallel = _parallel with { Dispatcher = _owned };
        }

        _kmeans = new(() => [.. _partitions.Select(p => new KMeansPartition(p))]);
        Dimension = points.Dimension;
        Count = points.Count;
        TotalWeight = DensePartition.Fold([.. _partitions.Select(p => new[] { p.TotalWeight })])[0];
    }

    public int Count { get; }

    public int Dimension { get; }

    public double TotalWeight { get; }

    public double[] Reduce(PartitionPass pass, CancellationToken cancellationToken) =>
        DensePartition.Fold([.. _partitions.Select(p => p.Run(pass, _parallel, cancellationToken))]);

    public void Dispose() => _owned?.Dispose();

    public double[] SeedMasses(KMeansSeedStep seeding, CancellationToken cancellationToken) =>
        [.. _kmeans.Value.Select(p => p.SeedMass(seeding))];

    public KMeansCandidate[] Pick(int partition, KMeansSeedStep seeding, double[] targets, CancellationToken cancellationToken) =>
        _kmeans.Value[partition].Pick(seeding, targets);

    public double[][] SeedPotentials(KMeansSeedStep seeding, double[] candidates, CancellationToken cancellationToken) =>
        [.. _kmeans.Value.Select(p => p.SeedPotentials(seeding, candidates))];

    public KMeansCandidate[] Farthest(double[] centres, int kp, CancellationToken cancellationToken) =>
        [.. _kmeans.Value.Select(p => p.Farthest(centres, kp))];

    public PartitionAssignments Assign(PartitionPass pass, CancellationToken cancellationToken)
    {
        var parts = _partitions.Select(p => p.Assign(pass)).ToArray();
        return new PartitionAssignments([.. parts.SelectMany(p => p.Assignments)], [.. parts.SelectMany(p => p.Weights)]);
    }
}
