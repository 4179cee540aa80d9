namespace Salsa.Store;

/// <summary>
/// An API key as the store keeps it: never the secret, only its SHA-256 hash. A key is found by
/// its <see cref="Id"/> (the public part of the key a caller presents) and proven by the hash.
/// </summary>
public sealed record ApiKeyRecord
{
    /// <summary>The key's public id (16 lower-case hex digits), part of the key a caller presents.</summary>
    public required string Id { get; init; }

    /// <summary>The tenant the key acts for.</summary>
    public required string Tenant { get; init; }

    /// <summary>What the key is for, e.g. the person or program holding it.</summary>
    public required string Name { get; init; }

    /// <summary><c>read</c>, <c>run</c>, <c>admin</c>.</summary>
    public required IReadOnlyList<string> Scopes { get; init; }

    /// <summary>SHA-256 of the key's secret part (32 bytes).</summary>
    public required byte[] SecretHash { get; init; }

    public required DateTimeOffset Created { get; init; }

    /// <summary>When it was revoked; a revoked key authenticates nothing.</summary>
    public DateTimeOffset? Revoked { get; init; }
}
