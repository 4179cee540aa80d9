namespace Salsa.Store;

/// <summary>
/// Timestamps as both stores keep them: UTC, truncated to the microsecond. PostgreSQL's
/// <c>timestamptz</c> resolves microseconds, so SQLite stores the same (an integer count of
/// microseconds since the Unix epoch) and both give back identical values.
/// </summary>
internal static class StoreTime
{
    private static readonly long UnixEpochTicks = DateTimeOffset.UnixEpoch.UtcTicks;

    /// <summary>The same instant at offset zero, with the sub-microsecond ticks dropped.</summary>
    public static DateTimeOffset Normalize(DateTimeOffset value)
    {
        var ticks = value.UtcTicks;
        return new DateTimeOffset(ticks - (ticks % TimeSpan.TicksPerMicrosecond), TimeSpan.Zero);
    }

    public static DateTimeOffset? Normalize(DateTimeOffset? value) => value is { } v ? Normalize(v) : null;

    public static long ToUnixMicroseconds(DateTimeOffset value) =>
        (Normalize(value).UtcTicks - UnixEpochTicks) / TimeSpan.TicksPerMicrosecond;

    public static DateTimeOffset FromUnixMicroseconds(long microseconds) =>
        new(UnixEpochTicks + (microseconds * TimeSpan.TicksPerMicrosecond), TimeSpan.Zero);
}
