using System.Security.Cryptography;
using System.Text;
using System.Threading.RateLimiting;
using Microsoft.Extensions.Caching.Memory;
using Microsoft.Extensions.Options;
using Salsa.Store;

namespace Salsa.Hosting.Security;

/// <summary>A new key: its record and the key itself, shown once and kept nowhere.</summary>
public sealed record CreatedApiKey(ApiKeyRecord Record, string Key);

/// <summary>
/// API keys: <c>salsa_&lt;id&gt;_&lt;secret&gt;</c>, 16 hex digits of public id and 256 random bits of
/// secret. The store keeps the id and the SHA-256 of the secret (a random 256-bit secret needs no
/// slow hash: there is nothing to guess). A verified key is trusted for
/// <see cref="AuthSettings.KeyCacheTime"/> before the store is asked again; a revocation on this
/// process takes effect at once.
/// </summary>
public sealed class ApiKeys(IDataStore store, IOptions<AuthSettings> options, TimeProvider time) : IDisposable
{
    private readonly AuthSettings _settings = options.Value;

    public const string Prefix = "salsa_";

    private const int IdBytes = 8;
    private const int SecretBytes = 32;

    // Unknown ids are remembered too (as null), so a flood of made-up keys costs the store one
    // query per id per cache period; the size limit bounds the memory such a flood can take.
    private readonly MemoryCache _cache = new(new MemoryCacheOptions { SizeLimit = 100_000 });

    // Failed authentications per client address: a flood of made-up ids, each a store query, is cut
    // off after a burst; a key verified recently (in the cache) is never held up by it.
    private readonly PartitionedRateLimiter<string> _failures = PartitionedRateLimiter.Create<string, string>(client =>
        options.Value.RateLimit.FailuresPerSecond <= 0 ? RateLimitPartition.GetNoLimiter(client) : RateLimitPartition.GetTokenBucketLimiter(client, _ => new TokenBucketRateLimiterOptions
        {
            TokenLimit = Math.Max(options.Value.RateLimit.FailureBurst, 1),
            TokensPerPeriod = options.Value.RateLimit.FailuresPerSecond,
            ReplenishmentPeriod = TimeSpan.FromSeconds(1),
            QueueLimit = 0,
            AutoReplenishment = true,
        }));

    public async Task<CreatedApiKey> CreateAsync(string tenant, string name, IEnumerable<string> scopes, CancellationToken cancellationToken = default)
    {
        Tenants.Require(tenant);
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        if (name.Length > 200)
        {
            throw new ArgumentException("A key's name has at most 200 characters.", nameof(name));
        }

        var id = Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(IdBytes));
        var secret = Base64Url(RandomNumberGenerator.GetBytes(SecretBytes));
        var record = new ApiKeyRecord
        {
            Id = id,
            Tenant = tenant,
            Name = name,
            Scopes = Scopes.Parse(scopes),
            SecretHash = Hash(secret),
            Created = time.GetUtcNow(),
        };
        await store.InsertApiKeyAsync(record, cancellationToken).ConfigureAwait(false);
        return new CreatedApiKey(record, $"{Prefix}{id}_{secret}");
    }

    /// <summary>
    /// The key's record when <paramref name="presented"/> is a valid, unrevoked key; null otherwise.
    /// Each failure counts against <paramref name="client"/> (its address); past
    /// <see cref="RateLimitSettings.FailuresPerSecond"/> a key not in the cache is refused with
    /// <see cref="TooManyFailuresException"/> before the store is asked.
    /// </summary>
    public async Task<ApiKeyRecord?> VerifyAsync(string presented, string client = "", CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(client);
        if (!TrySplit(presented, out var id, out var secret))
        {
            return Failed(client);
        }

        if (!_cache.TryGetValue(id, out ApiKeyRecord? record))
        {
            if (_failures.GetStatistics(client) is { CurrentAvailablePermits: <= 0 })
            {
                throw new TooManyFailuresException(TimeSpan.FromSeconds(Math.Ceiling(1.0 / Math.Max(_settings.RateLimit.FailuresPerSecond, 1))));
            }

            record = await store.GetApiKeyAsync(id, cancellationToken).ConfigureAwait(false);
            _cache.Set(id, record, new MemoryCacheEntryOptions { Size = 1, AbsoluteExpirationRelativeToNow = _settings.KeyCacheTime });
        }

        return record is { Revoked: null } && CryptographicOperations.FixedTimeEquals(record.SecretHash, Hash(secret)) ? record : Failed(client);
    }

    private ApiKeyRecord? Failed(string client)
    {
        using var _ = _failures.AttemptAcquire(client);
        return null;
    }

    public async Task<bool> RevokeAsync(string id, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(id);
        var revoked = await store.RevokeApiKeyAsync(id, time.GetUtcNow(), cancellationToken).ConfigureAwait(false);
        _cache.Remove(id);
        return revoked;
    }

    /// <summary>Splits a key into its id and secret; false when it does not have the key's shape.</summary>
    public static bool TrySplit(string? presented, out string id, out string secret)
    {
        id = secret = "";
        if (presented is null || !presented.StartsWith(Prefix, StringComparison.Ordinal) || presented.Length != Prefix.Length + (2 * IdBytes) + 1 + 43)
        {
            return false;
        }

        var rest = presented.AsSpan(Prefix.Length);
        if (rest[2 * IdBytes] != '_' || !rest[..(2 * IdBytes)].ContainsOnly("0123456789abcdef"))
        {
            return false;
        }

        id = rest[..(2 * IdBytes)].ToString();
        secret = rest[((2 * IdBytes) + 1)..].ToString();
        return true;
    }

    private static byte[] Hash(string secret) => SHA256.HashData(Encoding.UTF8.GetBytes(secret));

    private static string Base64Url(byte[] bytes) => Convert.ToBase64String(bytes).TrimEnd('=').Replace('+', '-').Replace('/', '_');

    public void Dispose()
    {
        _cache.Dispose();
        _failures.Dispose();
    }
}

/// <summary>A client address caused too many failed authentications: it may try again after <see cref="RetryAfter"/>.</summary>
public sealed class TooManyFailuresException(TimeSpan retryAfter)
    : Exception("Too many failed authentications from this address: keys are not checked for it for a while.")
{
    public TimeSpan RetryAfter { get; } = retryAfter;
}

file static class SpanChecks
{
    public static bool ContainsOnly(this ReadOnlySpan<char> span, string allowed) => span.IndexOfAnyExcept(allowed) < 0;
}
