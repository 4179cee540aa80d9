using Salsa.Cluster.Annealing;
using Salsa.Clustering.Annealing;

namespace Salsa.Cluster.Tests;

/// <summary>Drives a job on the cluster as a caller would: start, watch, read the result.</summary>
internal static class Jobs
{
    /// <summary>The job's view, asked again while the cluster replaces a lost silo.</summary>
    public static async Task<AnnealingJobView> ViewAsync(IGrainFactory grains, Guid job, CancellationToken cancellationToken)
    {
        while (true)
        {
            try
            {
                return await grains.GetGrain<IAnnealingJobGrain>(job).GetAsync().WaitAsync(TimeSpan.FromSeconds(10), cancellationToken);
            }
            catch (Exception exception) when (exception is OrleansException or TimeoutException)
            {
                await Task.Delay(250, cancellationToken);
            }
        }
    }

    /// <summary>Waits until <paramref name="until"/> holds for the job's view (or the job finished).</summary>
    public static async Task<AnnealingJobView> WaitAsync(IGrainFactory grains, Guid job, Func<AnnealingJobView, bool> until, CancellationToken cancellationToken, TimeSpan? limit = null)
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(limit ?? TimeSpan.FromMinutes(4));
        while (true)
        {
            var view = await ViewAsync(grains, job, timeout.Token);
            if (until(view) || view.IsFinished)
            {
                return view;
            }

            await Task.Delay(100, timeout.Token);
        }
    }

    public static async Task<(AnnealingJobView View, AnnealingResult Result)> ResultAsync(IGrainFactory grains, Guid job, CancellationToken cancellationToken)
    {
        var view = await WaitAsync(grains, job, _ => false, cancellationToken);
        Assert.True(view.Status == JobStatuses.Succeeded, $"The job ended {view.Status}: {view.Error}");
        var json = await grains.GetGrain<IAnnealingJobGrain>(job).ResultAsync();
        return (view, StateJson.Read<AnnealingResult>(json!));
    }
}
