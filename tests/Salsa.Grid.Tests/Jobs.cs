using Salsa.Clustering.Annealing;
using Salsa.Grid.Annealing;
using Salsa.Grid.Jobs;
using Salsa.Store;

namespace Salsa.Grid.Tests;

/// <summary>Drives a job on the cluster as a caller would: start, watch, read the result (an annealing job unless told).</summary>
internal static class Jobs
{
    public static Task<GridJobView> ViewAsync(IGrainFactory grains, Guid job, CancellationToken cancellationToken) =>
        ViewAsync<IAnnealingJobGrain>(grains, job, cancellationToken);

    /// <summary>The job's view, asked again while the cluster replaces a lost silo.</summary>
    public static async Task<GridJobView> ViewAsync<TGrain>(IGrainFactory grains, Guid job, CancellationToken cancellationToken)
        where TGrain : IGridJobGrain
    {
        while (true)
        {
            try
            {
                return await grains.GetGrain<TGrain>(job).GetAsync().WaitAsync(TimeSpan.FromSeconds(10), cancellationToken);
            }
            catch (Exception exception) when (exception is OrleansException or TimeoutException
                || (exception is OperationCanceledException && !cancellationToken.IsCancellationRequested))
            {
                // As GridCompute watches a job: the runtime may cancel a call while it replaces a silo.
                await Task.Delay(250, cancellationToken);
            }
        }
    }

    public static Task<GridJobView> WaitAsync(IGrainFactory grains, Guid job, Func<GridJobView, bool> until, CancellationToken cancellationToken, TimeSpan? limit = null) =>
        WaitAsync<IAnnealingJobGrain>(grains, job, until, cancellationToken, limit);

    /// <summary>Waits until <paramref name="until"/> holds for the job's view (or the job finished).</summary>
    public static async Task<GridJobView> WaitAsync<TGrain>(IGrainFactory grains, Guid job, Func<GridJobView, bool> until, CancellationToken cancellationToken, TimeSpan? limit = null)
        where TGrain : IGridJobGrain
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(limit ?? TimeSpan.FromMinutes(4));
        while (true)
        {
            var view = await ViewAsync<TGrain>(grains, job, timeout.Token);
            if (until(view) || view.IsFinished)
            {
                return view;
            }

            await Task.Delay(100, timeout.Token);
        }
    }

    public static Task<(GridJobView View, AnnealingResult Result)> ResultAsync(IGrainFactory grains, Guid job, CancellationToken cancellationToken) =>
        ResultAsync<IAnnealingJobGrain, AnnealingResult>(grains, job, cancellationToken);

    public static async Task<(GridJobView View, TResult Result)> ResultAsync<TGrain, TResult>(IGrainFactory grains, Guid job, CancellationToken cancellationToken)
        where TGrain : IGridJobGrain
    {
        var view = await WaitAsync<TGrain>(grains, job, _ => false, cancellationToken);
        Assert.True(view.Status == JobState.Succeeded, $"The job ended {view.Status}: {view.Error}");
        var json = await grains.GetGrain<TGrain>(job).ResultAsync();
        return (view, StateJson.Read<TResult>(json!));
    }
}
