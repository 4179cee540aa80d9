using Microsoft.Extensions.Logging;
using Orleans.Runtime.Placement;
using Salsa.Clustering;
using Salsa.Clustering.Fingerprints;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Partitions;
using Salsa.Grid.Compute;
using Salsa.Store;

namespace Salsa.Grid.Partitions;

[PartitionPlacement]
public sealed partial class PartitionGrain(IDataStore store, SiloCompute compute, SiloPartitions held, IClusterMembershipService membership, ILogger<PartitionGrain> logger)
    : Grain, IPartitionGrain
{
    private DensePartition? _partition;
    private SimilarityIndex? _prints;
    private string[]? _labels;
    private int _dimension;
    private DatasetKind _kind;

    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        var grainKey = this.GetPrimaryKeyString();
        var key = PartitionKey.Parse(grainKey);
        if (held.TakeStaged(grainKey) is { } staged)
        {
            // Moved here between passes, its rows loaded ahead (ISiloPassGrain.PrefetchAsync).
            (_kind, _dimension, _partition) = (DatasetKind.Dense, staged.Dimension, staged);
            held.Add(grainKey, staged);
            LogMovedHere(logger, grainKey, staged.Count);
            return;
        }

        var (info, content) = await ReadRowsAsync(store, key, cancellationToken);
        _kind = info.Kind;
        if (info.Kind == DatasetKind.Dense && content.Values is not null)
        {
            _dimension = info.Dimension;
            _partition = new DensePartition(DenseVectors.Rows(content.Values, info.Dimension, content.Weights));
            held.Add(this.GetPrimaryKeyString(), _partition);
        }
        else if (info.Kind == DatasetKind.Binary && content.Words is not null)
        {
            // One cluster holding every print: a brute-force search needs only the index's packed prints.
            var prints = new BinaryVectors(content.Words, info.Bits, content.Weights);
            _dimension = info.Bits;
            _prints = SimilarityIndex.Build(prints, new int[prints.Count], [0]);
            _labels = content.Labels;
        }
        else
        {
            throw new InvalidOperationException($"Dataset {key.DatasetId} is neither dense points nor fingerprints.");
        }
    }

    /// <summary>
    /// Partition <paramref name="key"/>'s rows only — a range read, so loading the grid reads the
    /// dataset once, not once per partition — with the dataset they belong to.
    /// </summary>
    internal static async Task<(DatasetInfo Info, DatasetContent Content)> ReadRowsAsync(IDataStore store, PartitionKey key, CancellationToken cancellationToken)
    {
        var info = await store.GetDatasetAsync(key.DatasetId, cancellationToken) ?? throw new InvalidOperationException($"No dataset {key.DatasetId} in the store.");
        if (key.Count > info.Count)
        {
            throw new InvalidOperationException($"Dataset {key.DatasetId} has {info.Count} points, too few for {key.Count} partitions.");
        }

        var (start, end) = key.Rows(info.Count);
        var content = await store.ReadDatasetRowsAsync(key.DatasetId, start, end - start, cancellationToken)
            ?? throw new InvalidOperationException($"No content for dataset {key.DatasetId}.");
        return (info, content);
    }

    /// <summary>
    /// Moves this partition to <paramref name="silo"/> once its current call ends (Orleans' live
    /// migration, the silo given as the placement hint): it deactivates here and activates there,
    /// on the rows staged for it or else read from the store. Nothing happens if it is there already
    /// or that silo is not an active member.
    /// </summary>
    public Task MoveAsync(string silo)
    {
        var target = membership.CurrentSnapshot.Members.Values
            .FirstOrDefault(m => m.Status == SiloStatus.Active && string.Equals(m.SiloAddress.ToString(), silo, StringComparison.Ordinal))?.SiloAddress;
        if (target is not null && silo != RuntimeIdentity)
        {
            RequestContext.Set(IPlacementDirector.PlacementHintKey, target);
            this.MigrateOnIdle();
        }

        return Task.CompletedTask;
    }

    public override Task OnDeactivateAsync(DeactivationReason reason, CancellationToken cancellationToken)
    {
        if (_partition is { } partition)
        {
            held.Remove(this.GetPrimaryKeyString(), partition);
        }

        return Task.CompletedTask;
    }

    public async Task<PartitionHits> SearchAsync(ulong[] query, int k)
    {
        var prints = _prints ?? throw new InvalidOperationException($"Partition {this.GetPrimaryKeyString()} holds {_kind} data, not fingerprints.");
        var (answer, _) = await compute.RunAsync(_ => prints.SearchBruteForce(query, Math.Min(k, prints.Count)));
        var labels = _labels;
        return new PartitionHits(
            [.. answer.Hits.Select(h => h.Compound)], [.. answer.Hits.Select(h => h.Similarity)], [.. answer.Hits.Select(h => h.Distance)],
            labels is null ? null : [.. answer.Hits.Select(h => labels[h.Compound])], answer.DistancesComputed, RuntimeIdentity);
    }

    // Kept between seeding steps by the silo (each step then costs one distance per row), shared
    // with a coordinator on this silo that computes the step in place.
    private KMeansPartition KMeans => held.KMeansOf(Dense);

    private DensePartition Dense => _partition ?? throw new InvalidOperationException($"Partition {this.GetPrimaryKeyString()} holds {_kind} data, not dense points.");

    public Task<PartitionInfo> InfoAsync() => Task.FromResult(_partition is { } dense
        ? new PartitionInfo(dense.Count, dense.TotalWeight, _dimension, RuntimeIdentity)
        : new PartitionInfo(_prints!.Count, 0, _dimension, RuntimeIdentity));

    public async Task<PartitionSums> RunAsync(PartitionPass pass)
    {
        var silo = RuntimeIdentity;
        return (await compute.RunAsync(parallel => PartitionPassWork.Run(() => Dense.Run(pass, parallel), silo))).Result;
    }

    public async Task<double> SeedMassAsync(KMeansSeedStep seeding) =>
        (await compute.RunAsync(_ => KMeans.SeedMass(seeding))).Result;

    public async Task<KMeansCandidate[]> PickAsync(KMeansSeedStep seeding, double[] targets) =>
        (await compute.RunAsync(_ => KMeans.Pick(seeding, targets))).Result;

    public async Task<double[]> SeedPotentialsAsync(KMeansSeedStep seeding, double[] candidates) =>
        (await compute.RunAsync(_ => KMeans.SeedPotentials(seeding, candidates))).Result;

    public async Task<KMeansCandidate> FarthestAsync(double[] centres, int kp) =>
        (await compute.RunAsync(_ => KMeans.Farthest(centres, kp))).Result;

    // On the silo's cores like every use of the rows: the silo's pass grain runs passes on them too.
    public async Task<PartitionRows> AssignAsync(PartitionPass pass)
    {
        var (rows, _) = await compute.RunAsync(_ => Dense.Assign(pass));
        return new PartitionRows(rows.Assignments, rows.Weights);
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Partition {Partition} moved here on its {Rows} rows loaded ahead.")]
    private static partial void LogMovedHere(ILogger logger, string partition, int rows);
}
