using Salsa.Cluster.Compute;
using Salsa.Clustering;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.KMeans;
using Salsa.Store;

namespace Salsa.Cluster.Partitions;

/// <summary>
/// A partition of a dense dataset, kept in memory on whichever silo Orleans placed it; it loads its
/// rows from the store when activated (again on a survivor, if its silo is lost) and computes passes
/// on its silo's cores.
/// </summary>
public interface IPartitionGrain : IGrainWithStringKey
{
    Task<PartitionInfo> InfoAsync();

    /// <summary>This partition's sums for one annealing pass.</summary>
    Task<PartitionSums> RunAsync(AnnealingPass pass);

    /// <summary>Each row's nearest centre of <paramref name="pass"/>, and its weight.</summary>
    Task<PartitionRows> AssignAsync(AnnealingPass pass);

    /// <summary>This partition's k-means++ mass for one seeding step (Σ w·D²).</summary>
    Task<double> SeedMassAsync(KMeansSeedStep seeding);

    /// <summary>The row a k-means++ draw falls on.</summary>
    Task<KMeansCandidate> PickAsync(KMeansSeedStep seeding, double target);

    /// <summary>The row that adds most to the k-means cost under <paramref name="centres"/>.</summary>
    Task<KMeansCandidate> FarthestAsync(double[] centres, int kp);
}

[PartitionPlacement]
public sealed class PartitionGrain(IDataStore store, SiloCompute compute) : Grain, IPartitionGrain
{
    private AnnealingPartition _partition = null!;
    private KMeansPartition? _kmeans;
    private int _dimension;

    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        var key = PartitionKey.Parse(this.GetPrimaryKeyString());
        var info = await store.GetDatasetAsync(key.DatasetId, cancellationToken) ?? throw new InvalidOperationException($"No dataset {key.DatasetId} in the store.");
        var content = await store.ReadDatasetAsync(key.DatasetId, cancellationToken) ?? throw new InvalidOperationException($"No content for dataset {key.DatasetId}.");
        if (info.Kind != DatasetKind.Dense || content.Values is null)
        {
            throw new InvalidOperationException($"Dataset {key.DatasetId} is not dense; partitions hold dense points.");
        }

        if (key.Count > info.Count)
        {
            throw new InvalidOperationException($"Dataset {key.DatasetId} has {info.Count} points, too few for {key.Count} partitions.");
        }

        var (start, end) = key.Rows(info.Count);
        _dimension = info.Dimension;
        _partition = new AnnealingPartition(new DenseVectors(content.Values, info.Dimension, content.Weights).Slice(start, end));
    }

    // Kept between seeding steps: each step then costs one distance per row.
    private KMeansPartition KMeans => _kmeans ??= new KMeansPartition(_partition);

    public Task<PartitionInfo> InfoAsync() => Task.FromResult(new PartitionInfo(_partition.Count, _partition.TotalWeight, _dimension, RuntimeIdentity));

    public async Task<PartitionSums> RunAsync(AnnealingPass pass)
    {
        var (sums, time) = await compute.RunAsync(parallel => _partition.Run(pass, parallel));
        return new PartitionSums(sums, time.TotalMicroseconds, RuntimeIdentity);
    }

    public async Task<double> SeedMassAsync(KMeansSeedStep seeding) =>
        (await compute.RunAsync(_ => KMeans.SeedMass(seeding))).Result;

    public async Task<KMeansCandidate> PickAsync(KMeansSeedStep seeding, double target) =>
        (await compute.RunAsync(_ => KMeans.Pick(seeding, target))).Result;

    public async Task<KMeansCandidate> FarthestAsync(double[] centres, int kp) =>
        (await compute.RunAsync(_ => KMeans.Farthest(centres, kp))).Result;

    public Task<PartitionRows> AssignAsync(AnnealingPass pass)
    {
        var rows = _partition.Assign(pass);
        return Task.FromResult(new PartitionRows(rows.Assignments, rows.Weights));
    }
}
