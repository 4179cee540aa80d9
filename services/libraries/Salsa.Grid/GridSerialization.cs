using Microsoft.Extensions.DependencyInjection;
using Orleans.Serialization;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;

namespace Salsa.Grid;

/// <summary>
/// How a grid job's options travel: the algorithm's own options records (Salsa.Clustering knows
/// nothing of Orleans) go as JSON through Orleans' System.Text.Json codec, so a spec carries them
/// whole and a parameter added to an algorithm reaches the silos with no grid code written for it.
/// </summary>
public static class GridSerialization
{
    /// <summary>The options records a job spec carries.</summary>
    private static readonly HashSet<Type> s_options = [typeof(AnnealingOptions), typeof(KMeansOptions), typeof(ParallelismOptions)];

    /// <summary>Registers the codec, on silos and clients alike.</summary>
    public static IServiceCollection AddGridSerialization(this IServiceCollection services) =>
        services.AddSerializer(serializer => serializer.AddJsonSerializer(isSupported: s_options.Contains));

    /// <summary>A partition computes on one rank: the options' ranks, and no dispatcher of this process.</summary>
    public static ParallelismOptions PartitionRanks(ParallelismOptions parallel)
    {
        ArgumentNullException.ThrowIfNull(parallel);
        return new ParallelismOptions { Ranks = 1, BlockSize = parallel.BlockSize };
    }
}
