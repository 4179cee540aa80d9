namespace Salsa.Gateway.Runs;

/// <summary>Which of the caller's runs a list shows (a null filter selects any) and which page of them, newest first.</summary>
public sealed record RunQuery
{
    /// <summary>The workflow's name.</summary>
    public string? Workflow { get; init; }

    public RunState? State { get; init; }

    /// <summary>Created at or after.</summary>
    public DateTimeOffset? From { get; init; }

    /// <summary>Created before.</summary>
    public DateTimeOffset? Before { get; init; }

    public int Offset { get; init; }

    public int Limit { get; init; } = 50;

    public const int MaxLimit = 1000;

    public const int MaxOffset = 1_000_000;

    /// <summary>A query from a caller's words (REST's query string, gRPC's fields): each checked, or an <see cref="ArgumentException"/> naming it.</summary>
    public static RunQuery Of(string? workflow, string? state, DateTimeOffset? from, DateTimeOffset? before, int? offset, int? limit)
    {
        if (limit is < 1 or > MaxLimit)
        {
            throw new ArgumentException($"limit must be between 1 and {MaxLimit} (it is {limit}).");
        }

        if (offset is < 0 or > MaxOffset)
        {
            throw new ArgumentException($"offset must be between 0 and {MaxOffset:N0} (it is {offset}).");
        }

        if (workflow is { Length: > 200 })
        {
            throw new ArgumentException("workflow is a workflow's name: at most 200 characters.");
        }

        RunState? parsed = null;
        if (!string.IsNullOrEmpty(state))
        {
            parsed = Enum.TryParse<RunState>(state, ignoreCase: true, out var value) && Enum.IsDefined(value) && !char.IsDigit(state[0])
                ? value
                : throw new ArgumentException($"state '{(state.Length > 40 ? state[..40] + "…" : state)}' is not a run's state (queued, running, succeeded, failed, cancelled, interrupted).");
        }

        if (from is { } f && before is { } b && b <= f)
        {
            throw new ArgumentException("before must be later than from.");
        }

        return new RunQuery
        {
            Workflow = string.IsNullOrEmpty(workflow) ? null : workflow,
            State = parsed,
            From = from,
            Before = before,
            Offset = offset ?? 0,
            Limit = limit ?? 50,
        };
    }
}

/// <summary>A page of runs and how many the query selects in all.</summary>
public sealed record RunPage(IReadOnlyList<RunView> Runs, int Total);
