namespace Salsa.Grpc;

/// <summary>The outcome of a call: a code and a human-readable detail (sent as grpc-message).</summary>
public readonly struct Status : IEquatable<Status>
{
    private readonly string? _detail;

    public static readonly Status DefaultSuccess = new(StatusCode.OK, "");
    public static readonly Status DefaultCancelled = new(StatusCode.Cancelled, "");

    public Status(StatusCode statusCode, string detail, Exception? debugException = null)
    {
        StatusCode = statusCode;
        _detail = detail ?? "";
        DebugException = debugException;
    }

    public StatusCode StatusCode { get; }

    // default(Status) has no detail string; it reads as "" like every other status.
    public string Detail => _detail ?? "";

    /// <summary>Local diagnostics only: never sent over the wire.</summary>
    public Exception? DebugException { get; }

    public bool Equals(Status other) => StatusCode == other.StatusCode && string.Equals(Detail, other.Detail, StringComparison.Ordinal);

    public override bool Equals(object? obj) => obj is Status other && Equals(other);

    public override int GetHashCode() => HashCode.Combine(StatusCode, Detail);

    public static bool operator ==(Status left, Status right) => left.Equals(right);

    public static bool operator !=(Status left, Status right) => !left.Equals(right);

    public override string ToString() =>
        DebugException is null
            ? $"Status(StatusCode=\"{StatusCode}\", Detail=\"{Detail}\")"
            : $"Status(StatusCode=\"{StatusCode}\", Detail=\"{Detail}\", DebugException=\"{DebugException.GetType()}: {DebugException.Message}\")";
}
