namespace Salsa.Hosting.Security;

/// <summary>
/// A client address, or calls naming one key id, caused too many failed authentications: it may try
/// again after <see cref="RetryAfter"/>.
/// </summary>
public sealed class TooManyFailuresException(FailureSource source, TimeSpan retryAfter)
    : Exception(source == FailureSource.Address
        ? "Too many failed authentications from this address: keys are not checked for it for a while."
        : "Too many failed authentications for this key id: a wrong secret for it is not checked for a while (the right one still is).")
{
    public FailureSource CountedAgainst { get; } = source;

    public TimeSpan RetryAfter { get; } = retryAfter;
}

/// <summary>What failed authentications were counted against.</summary>
public enum FailureSource
{
    /// <summary>The client address the calls came from.</summary>
    Address,

    /// <summary>The key id the calls named, from any address.</summary>
    KeyId,
}
