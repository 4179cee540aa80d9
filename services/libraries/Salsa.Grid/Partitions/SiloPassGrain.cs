using Salsa.Clustering.KMeans;
using Salsa.Clustering.Partitions;
using Salsa.Grid.Compute;

namespace Salsa.Grid.Partitions;

[SiloPinnedPlacement]
public sealed class SiloPassGrain(SiloPartitions held, SiloCompute compute) : Grain, ISiloPassGrain
{
    public Task<SiloTreeAnswer> RunAsync(PartitionPass pass, SiloPassPlan plan) => held.RunTreeAsync(GrainFactory, compute, RuntimeIdentity, pass, plan);

    public Task<SiloSeedAnswer<double>> SeedMassAsync(KMeansSeedStep seeding, string[] partitions) => held.SeedHeldAsync(compute, partitions, k => k.SeedMass(seeding));

    public Task<SiloSeedAnswer<double[]>> SeedPotentialsAsync(KMeansSeedStep seeding, double[] candidates, string[] partitions) =>
        held.SeedHeldAsync(compute, partitions, k => k.SeedPotentials(seeding, candidates));

    public Task<SiloSeedAnswer<KMeansCandidate>> FarthestAsync(double[] centres, int kp, string[] partitions) => held.SeedHeldAsync(compute, partitions, k => k.Farthest(centres, kp));
}
