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

    // Failed authentications per client address and per key id: a flood of made-up ids, each a store
    // query, is cut off after a burst, and so are made-up secrets for a real id from any number of
    // addresses. A right key is never held up by them: a verified key in the cache is answered
    // without the address's count, and the right secret passes whatever its id's count.
    private readonly PartitionedRateLimiter<string> _failures = PartitionedRateLimiter.Create<string, string>(partition =>
        options.Value.RateLimit.FailuresPerSecond <= 0 ? RateLimitPartition.GetNoLimiter(partition) : RateLimitPartition.GetTokenBucketLimiter(partition, _ => new TokenBucketRateLimiterOptions
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
        await store.InsertApiKeyAsync(record, _settings.MaxKeysPerTenant, cancellationToken).ConfigureAwait(false);
        return new CreatedApiKey(record, $"{Prefix}{id}_{secret}");
    }

    /// <summary>
    /// The key's record when <paramref name="presented"/> is a valid, unrevoked key; null otherwise.
    /// Each failure counts against <paramref name="client"/> (its address) and against the key id it
    /// names: past <see cref="RateLimitSettings.FailuresPerSecond"/> for the address, a key not in the
    /// cache is refused with <see cref="TooManyFailuresException"/> before the store is asked; past it
    /// for either, a failure is answered with that exception instead of null.
    /// </summary>
    public async Task<ApiKeyRecord?> VerifyAsync(string presented, string client = "", CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(client);
        if (!TrySplit(presented, out var id, out var secret))
        {
            return Failed(client, id: null);
        }

        if (!_cache.TryGetValue(id, out ApiKeyRecord? record))
        {
            if (_failures.GetStatistics(AddressPartition(client)) is { CurrentAvailablePermits: <= 0 })
            {
                throw TooManyFailures(FailureSource.Address);
            }

            record = await store.GetApiKeyAsync(id, cancellationToken).ConfigureAwait(false);
            _cache.Set(id, record, new MemoryCacheEntryOptions { Size = 1, AbsoluteExpirationRelativeToNow = _settings.KeyCacheTime });
        }

        return record is { Revoked: null } && CryptographicOperations.FixedTimeEquals(record.SecretHash, Hash(secret)) ? record : Failed(client, id);
    }

    private ApiKeyRecord? Failed(string client, string? id)
    {
        // Both counts are taken, whichever is spent: a flood from one address keeps its id's count
        // spent too, so moving to another address gains it nothing.
        using var address = _failures.AttemptAcquire(AddressPartition(client));
        using var key = id is null ? null : _failures.AttemptAcquire(KeyPartition(id));
        if (!address.IsAcquired)
        {
            throw TooManyFailures(FailureSource.Address);
        }

        return key is { IsAcquired: false } ? throw TooManyFailures(FailureSource.KeyId) : null;
    }

    private static string AddressPartition(string client) => "address " + client;

    private static string KeyPartition(string id) => "key " + id;

    private TooManyFailuresException TooManyFailures(FailureSource source) =>
        new(source, TimeSpan.FromSeconds(Math.Ceiling(1.0 / Math.Max(_settings.RateLimit.FailuresPerSecond, 1))));

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

file static class SpanChecks
{
    public static bool ContainsOnly(this ReadOnlySpan<char> span, string allowed) => span.IndexOfAnyExcept(allowed) < 0;
}
