namespace Salsa.Grid.Jobs;

/// <summary>
/// The coordinator of one job on the cluster (keyed by the job's id), whatever its algorithm: what
/// a caller asks of it once it was started, and what its own loop reports.
/// </summary>
public interface IGridJobGrain : IGrainWithGuidKey
{
    Task<GridJobView> GetAsync();

    /// <summary>
    /// The job as it changes — now, then at each step the algorithm reports and each change of its
    /// status or silos — until it ends. A coordinator lost with its silo ends the stream with an
    /// error; asking again finds the job resumed on a survivor.
    /// </summary>
    IAsyncEnumerable<GridJobView> WatchAsync(CancellationToken cancellationToken = default);

    /// <summary>
    /// Part <paramref name="index"/> of the result as JSON (the algorithm's result record), once the
    /// job succeeded; null before. <see cref="GridJobResults.ResultAsync"/> reads them all.
    /// </summary>
    Task<ResultPart?> ResultPartAsync(int index);

    Task<GridJobView> CancelAsync();

    /// <summary>From the job's own loop: a checkpoint to keep (JSON), with this activation's pass statistics so far.</summary>
    Task CheckpointAsync(string checkpoint, PassStatistics passes, string[] silos);

    /// <summary>From the job's own loop: how it ended.</summary>
    Task CompleteAsync(string? result, string? failure, PassStatistics passes, string[] silos);
}
