namespace Salsa.Grid.Jobs;

/// <summary>A job's whole result, read in parts (<see cref="ResultPart"/>).</summary>
public static class GridJobResults
{
    /// <summary>The result as JSON (the algorithm's result record), once the job succeeded; null before.</summary>
    public static Task<string?> ResultAsync(this IGridJobGrain job)
    {
        ArgumentNullException.ThrowIfNull(job);
        return ResultPart.ReadAsync(job.ResultPartAsync);
    }
}
