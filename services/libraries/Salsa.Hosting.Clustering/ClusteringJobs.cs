using System.Threading.Channels;
using Salsa.Clustering;
using Salsa.Clustering.Parallel;
using Salsa.Hosting.Jobs;

namespace Salsa.Hosting.Clustering;

/// <summary>A job's cores and progress, as the algorithms of Salsa.Clustering take them.</summary>
public static class ClusteringJobs
{
    extension(JobContext context)
    {
        /// <summary>The parallelism a job's algorithm runs with: this service's ranks on its compute dispatcher.</summary>
        public ParallelismOptions Parallelism => new() { Ranks = context.Ranks, Dispatcher = context.Compute };

        /// <summary>Progress of a Salsa.Clustering algorithm, reported as the job's.</summary>
        public ChannelWriter<ClusteringProgress> ClusteringProgress() => context.ProgressWriter<ClusteringProgress>(ToJobProgress);
    }

    public static JobProgressUpdate ToJobProgress(ClusteringProgress progress)
    {
        ArgumentNullException.ThrowIfNull(progress);
        return new(progress.Phase, progress.Iteration, progress.Temperature, progress.Clusters, progress.Objective, progress.Elapsed.TotalMilliseconds);
    }
}
