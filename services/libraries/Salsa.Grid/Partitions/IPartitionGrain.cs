using Salsa.Clustering.KMeans;
using Salsa.Clustering.Partitions;

namespace Salsa.Grid.Partitions;

/// <summary>
/// A partition of a dataset, kept in memory on whichever silo Orleans placed it; it loads its own
/// rows (a range read) from the store when activated (again on a survivor, if its silo is lost) and computes on its
/// silo's cores: annealing and k-means passes over dense points, similarity searches over fingerprints.
/// </summary>
public interface IPartitionGrain : IGrainWithStringKey
{
    Task<PartitionInfo> InfoAsync();

    /// <summary>Moves this partition to <paramref name="silo"/> (an active member's identity) once its current call ends.</summary>
    Task MoveAsync(string silo);

    /// <summary>This partition's sums for one annealing pass.</summary>
    Task<PartitionSums> RunAsync(PartitionPass pass);

    /// <summary>Each row's nearest centre of <paramref name="pass"/>, and its weight.</summary>
    Task<PartitionRows> AssignAsync(PartitionPass pass);

    /// <summary>This partition's k-means++ mass for one seeding step (Σ w·D²).</summary>
    Task<double> SeedMassAsync(KMeansSeedStep seeding);

    /// <summary>The rows k-means++ draws fall on.</summary>
    Task<KMeansCandidate[]> PickAsync(KMeansSeedStep seeding, double[] targets);

    /// <summary>This partition's Σ w·min(D², d²(x, candidate)) for each candidate centre (row-major) of greedy k-means++.</summary>
    Task<double[]> SeedPotentialsAsync(KMeansSeedStep seeding, double[] candidates);

    /// <summary>The row that adds most to the k-means cost under <paramref name="centres"/>.</summary>
    Task<KMeansCandidate> FarthestAsync(double[] centres, int kp);

    /// <summary>The <paramref name="k"/> fingerprints of this partition most similar to <paramref name="query"/> (all of them if it holds fewer), by their index in the partition.</summary>
    Task<PartitionHits> SearchAsync(ulong[] query, int k);
}
