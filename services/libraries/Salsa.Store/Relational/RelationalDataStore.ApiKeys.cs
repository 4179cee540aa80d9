using System.Data.Common;
using System.Globalization;

namespace Salsa.Store.Relational;

/// <summary>API keys: their hashes, tenants and scopes, bounded per tenant.</summary>
public abstract partial class RelationalDataStore
{
    public Task InsertApiKeyAsync(ApiKeyRecord key, int maxLiveKeys, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateApiKey(key);
        return WriteAsync(async (connection, cancellationToken) =>
        {
            // The count and the insert in one transaction, one tenant's creates taking turns (the
            // vendor's tenant lock, or the write lock its transaction holds).
            await using var transaction = await BeginWriteAsync(connection, cancellationToken);
            await LockTenantAsync(connection, transaction, "salsa.keys", key.Tenant, cancellationToken);
            using (var live = Command(connection, transaction, Queries.CountLiveKeys).Text("@tenant", key.Tenant))
            {
                StoreValidation.RequireKeyRoom(key.Tenant, Convert.ToInt32(await live.ScalarAsync(cancellationToken), CultureInfo.InvariantCulture), maxLiveKeys);
            }

            var insert = Command(connection, transaction, Queries.InsertApiKey)
                .Text("@id", key.Id)
                .Text("@tenant", key.Tenant)
                .Text("@name", key.Name)
                .Text("@scopes", string.Join(' ', key.Scopes))
                .Bytes("@secret_hash", key.SecretHash)
                .Time("@created", key.Created)
                .Time("@revoked", key.Revoked);
            await ExecuteOnceAsync(insert, $"An API key with id {key.Id} already exists.", cancellationToken);
            await transaction.CommitAsync(cancellationToken);
            return 0;
        }, cancellationToken);
    }

    public Task<ApiKeyRecord?> GetApiKeyAsync(string id, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(id);
        return ReadAsync(async (connection, cancellationToken) =>
        {
            using var select = Command(connection, null, Queries.GetApiKey).Text("@id", id);
            return await select.FirstAsync(ReadApiKey, cancellationToken);
        }, cancellationToken);
    }

    public Task<IReadOnlyList<ApiKeyRecord>> ListApiKeysAsync(string? tenant, CancellationToken cancellationToken = default) =>
        ReadAsync<IReadOnlyList<ApiKeyRecord>>(async (connection, cancellationToken) =>
        {
            using var select = Command(connection, null, Queries.ListApiKeys).Text("@tenant", tenant);
            return await select.ListAsync(ReadApiKey, cancellationToken);
        }, cancellationToken);

    public Task<bool> RevokeApiKeyAsync(string id, DateTimeOffset revoked, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(id);
        return WriteAsync(async (connection, cancellationToken) =>
        {
            using var update = Command(connection, null, Queries.RevokeApiKey).Text("@id", id).Time("@revoked", revoked);
            return await update.ExecuteAsync(cancellationToken) > 0;
        }, cancellationToken);
    }

    private ApiKeyRecord ReadApiKey(DbDataReader reader) => new()
    {
        Id = reader.GetString(0),
        Tenant = reader.GetString(1),
        Name = reader.GetString(2),
        Scopes = reader.GetString(3).Split(' ', StringSplitOptions.RemoveEmptyEntries),
        SecretHash = reader.GetFieldValue<byte[]>(4),
        Created = Dialect.ReadTime(reader, 5),
        Revoked = reader.IsDBNull(6) ? null : Dialect.ReadTime(reader, 6),
    };
}
