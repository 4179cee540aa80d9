using Npgsql;
using Salsa.Store.Postgres;
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
    public async Task InitializeAsync_DatabaseOfSchemaVersion1_MigratesStepByStep_KeepingRecordsAsTheLocalTenantsWithTheirBytes()
    {
        var location = await postgres.NewDatabaseAsync();
        string v1;
        using (var script = new StreamReader(typeof(PostgresDataStore).Assembly.GetManifestResourceStream("Salsa.Store.Postgres.Sql.001-schema.sql")!))
        {
            v1 = await script.ReadToEndAsync(Ct);
        }

        var dataset = Guid.NewGuid();
        var job = Guid.NewGuid();
        await using (var dataSource = NpgsqlDataSource.Create(location))
        {
            // A database as version 1 left it: two points of 16 bytes with a label each, a job, no tenants.
            await dataSource.CreateCommand(v1 + $"""
                ;INSERT INTO salsa.datasets (id, name, kind, count, dimension, bits, total_weight, created, source, metadata, has_labels, has_texts)
                VALUES ('{dataset}', 'old', 1, 2, 2, 0, 2, now(), 'before tenants', '{"{}"}', true, false);
                INSERT INTO salsa.dataset_points (dataset_id, idx, vector, weight, label) VALUES
                    ('{dataset}', 0, decode(repeat('00', 16), 'hex'), 1, 'ab'), ('{dataset}', 1, decode(repeat('00', 16), 'hex'), 1, 'cde');
                INSERT INTO salsa.jobs (id, service, kind, state, created, queue_ms, compute_ms, parameters) VALUES ('{job}', 'annealing', 'annealing', 3, now(), 0, 0, '{"{}"}');
                INSERT INTO salsa.schema_version (version) VALUES (1);
                """).ExecuteNonQueryAsync(Ct);
        }

        var store = await OpenInitializedAsync(location);

        var migrated = (await store.GetDatasetAsync(dataset, Ct))!;
        Assert.Equal((Tenants.Local, (2 * (8 + 16)) + 2 + 3), (migrated.Tenant, migrated.Bytes));
        Assert.Equal(Tenants.Local, (await store.GetJobAsync(job, Ct))!.Tenant);
        var key = TestData.ApiKey(Tenants.Local, ["admin"]);
        await store.InsertApiKeyAsync(key, int.MaxValue, Ct);
        Assert.NotNull(await store.GetApiKeyAsync(key.Id, Ct));
        await using (var dataSource = NpgsqlDataSource.Create(location))
        {
            Assert.Equal(6, (int)(await dataSource.CreateCommand("SELECT max(version) FROM salsa.schema_version").ExecuteScalarAsync(Ct))!);
        }

        // Opening it again migrates nothing twice.
        await OpenInitializedAsync(location);
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
