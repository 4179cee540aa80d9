using Npgsql;
using Salsa.Testing;

namespace Salsa.Store.Tests;

/// <summary>The contract on PostgreSQL (a real server started by the tests), in this class's own database.</summary>
public sealed class PostgresDataStoreTests(PostgresFixture postgres) : DataStoreContractTests
{
    protected override async ValueTask<string> ClassStorageAsync() => await postgres.DatabaseAsync("store_contract");

    protected override async ValueTask<string> NewStorageAsync() => await postgres.NewDatabaseAsync();

    protected override IDataStore Open(string location, StorageQuota? quota = null) => new PostgresDataStore(location, quota: quota);

    [Fact]
    public async Task InitializeAsync_DatabaseFromANewerSchema_ThrowsNotSupported()
    {
        var location = await postgres.NewDatabaseAsync();
        await OpenInitializedAsync(location);
        await using (var dataSource = NpgsqlDataSource.Create(location))
        {
            await dataSource.CreateCommand("INSERT INTO salsa.schema_version (version) VALUES (99)").ExecuteNonQueryAsync(Ct);
        }

        await Assert.ThrowsAsync<NotSupportedException>(() => OpenInitializedAsync(location));
    }

    [Fact]
    public async Task CreateDatasetAsync_Census_StoresOneRowPerPointWithVectorBytes()
    {
        var (info, content) = TestData.Dense(100, 2);
        info = info with { Kind = DatasetKind.Census };
        await Store.CreateDatasetAsync(info, content, Ct);

        await using var dataSource = NpgsqlDataSource.Create(Location);
        await using var command = dataSource.CreateCommand("SELECT count(*), min(octet_length(vector)), max(octet_length(vector)) FROM salsa.dataset_points WHERE dataset_id = $1");
        command.Parameters.Add(new NpgsqlParameter<Guid> { TypedValue = info.Id });
        await using var reader = await command.ExecuteReaderAsync(Ct);
        Assert.True(await reader.ReadAsync(Ct));
        Assert.Equal(100L, reader.GetInt64(0));
        Assert.Equal(16, reader.GetInt32(1));
        Assert.Equal(16, reader.GetInt32(2));
    }
}
