namespace Salsa.Store;

/// <summary>
/// Which jobs <see cref="IDataStore.QueryJobsAsync"/> selects (a null filter selects any) and which
/// page of them, newest first: <see cref="Offset"/> skipped, at most <see cref="Limit"/> returned.
/// </summary>
public sealed record JobQuery
{
    public string? Service { get; init; }

    public string? Tenant { get; init; }

    /// <summary>What the job does; for the gateway's runs, the workflow's name.</summary>
    public string? Kind { get; init; }

    public JobState? State { get; init; }

    /// <summary>Created at or after.</summary>
    public DateTimeOffset? CreatedFrom { get; init; }

    /// <summary>Created before.</summary>
    public DateTimeOffset? CreatedBefore { get; init; }

    public int Offset { get; init; }

    public int Limit { get; init; } = 100;
}

/// <summary>A page of a <see cref="JobQuery"/>'s jobs and how many the query selects in all.</summary>
public sealed record JobPage(IReadOnlyList<JobRecord> Jobs, int Total);
