using System.Diagnostics;
using Salsa.Clustering;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Partitions;
using Salsa.Grid.Compute;
using Salsa.Store;

namespace Salsa.Grid.Partitions;

[SiloPinnedPlacement]
public sealed class SiloPassGrain(SiloPartitions held, SiloCompute compute, IDataStore store) : Grain, ISiloPassGrain
{
    public Task<SiloTreeAnswer> RunAsync(PartitionPass pass, SiloPassPlan plan) => held.RunTreeAsync(GrainFactory, compute, RuntimeIdentity, pass, plan);

    public Task<long> PrefetchAsync(Guid datasetId, int count, int[] partitions)
    {
        ArgumentNullException.ThrowIfNull(partitions);
        return Task.Run(() => StageAsync(datasetId, count, partitions));
    }

    // One partition after another. A silo that computes passes while it loads (it holds
    // partitions: it takes over a leaving silo's) spends at most half its time loading — each read
    // followed by a rest as long — so the passes it shares its cores with slow by less; a silo
    // holding nothing (one that joined) loads at full speed.
    private async Task<long> StageAsync(Guid datasetId, int count, int[] partitions)
    {
        var rows = 0L;
        foreach (var index in partitions)
        {
            var key = new PartitionKey(datasetId, index, count);
            if (held.HasRows(key.ToGrainKey()))
            {
                continue;
            }

            var started = Stopwatch.GetTimestamp();
            var (info, content) = await PartitionGrain.ReadRowsAsync(store, key, CancellationToken.None);
            if (info.Kind != DatasetKind.Dense || content.Values is null)
            {
                continue; // fingerprints are searched in one round: nothing to move ahead
            }

            var partition = new DensePartition(DenseVectors.Rows(content.Values, info.Dimension, content.Weights));
            held.Stage(key.ToGrainKey(), partition);
            rows += partition.Count;
            if (held.Count > 0)
            {
                await Task.Delay(Stopwatch.GetElapsedTime(started));
            }
        }

        return rows;
    }

    public Task<SiloSeedAnswer<double>> SeedMassAsync(KMeansSeedStep seeding, string[] partitions) => held.SeedHeldAsync(compute, partitions, k => k.SeedMass(seeding));

    public Task<SiloSeedAnswer<double[]>> SeedPotentialsAsync(KMeansSeedStep seeding, double[] candidates, string[] partitions) =>
        held.SeedHeldAsync(compute, partitions, k => k.SeedPotentials(seeding, candidates));

    public Task<SiloSeedAnswer<KMeansCandidate>> FarthestAsync(double[] centres, int kp, string[] partitions) => held.SeedHeldAsync(compute, partitions, k => k.Farthest(centres, kp));
}
