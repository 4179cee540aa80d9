using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Npgsql;
using Salsa.Store.Postgres;
using Salsa.Store.Sqlite;
using Salsa.Testing;

namespace Salsa.Store.Tests;

public sealed class DataStoreFactoryTests(PostgresFixture postgres)
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Theory]
    [InlineData("Host=db;Database=salsa;Username=u;Password=p", true)]
    [InlineData("host=db", true)]
    [InlineData("Server=db.example;Port=6543", true)]
    [InlineData("  SERVER = db ; database = x ", true)]
    [InlineData("postgres://u:p@db/salsa", true)]
    [InlineData("postgresql://db", true)]
    [InlineData("PostgreSQL://db:5432/x?sslmode=disable", true)]
    [InlineData(null, false)]
    [InlineData("", false)]
    [InlineData("   ", false)]
    [InlineData("Data Source=/tmp/salsa.db", false)]
    [InlineData("mysql://db/salsa", false)]
    [InlineData("not a connection string", false)]
    public void IsPostgres_ConnectionString_FollowsTheDocumentedRule(string? connectionString, bool expected) =>
        Assert.Equal(expected, DataStoreFactory.IsPostgres(connectionString));

    [Fact]
    public void ToNpgsqlConnectionString_UriWithEveryPart_MapsToNpgsqlKeywords()
    {
        var converted = DataStoreFactory.ToNpgsqlConnectionString("postgres://us%40er:p%3Ass%2Fw@db.example:6543/salsa%20db?sslmode=require&application_name=gateway&connect_timeout=7");

        var settings = new NpgsqlConnectionStringBuilder(converted);
        Assert.Equal("db.example", settings.Host);
        Assert.Equal(6543, settings.Port);
        Assert.Equal("us@er", settings.Username);
        Assert.Equal("p:ss/w", settings.Password);
        Assert.Equal("salsa db", settings.Database);
        Assert.Equal(SslMode.Require, settings.SslMode);
        Assert.Equal("gateway", settings.ApplicationName);
        Assert.Equal(7, settings.Timeout);
    }

    [Fact]
    public void ToNpgsqlConnectionString_MinimalAndMultiHostUris_KeepHostsAndDefaults()
    {
        var minimal = new NpgsqlConnectionStringBuilder(DataStoreFactory.ToNpgsqlConnectionString("postgresql://db"));
        var multi = new NpgsqlConnectionStringBuilder(DataStoreFactory.ToNpgsqlConnectionString("postgres://u@db1:5433,db2:5434/salsa"));
        var ipv6 = new NpgsqlConnectionStringBuilder(DataStoreFactory.ToNpgsqlConnectionString("postgres://[::1]:5999/salsa"));

        Assert.Equal("db", minimal.Host);
        Assert.Equal(NpgsqlConnection.DefaultPort, minimal.Port);
        Assert.Null(minimal.Database);
        Assert.Equal("db1:5433,db2:5434", multi.Host);
        Assert.Equal("u", multi.Username);
        Assert.Equal("::1", ipv6.Host);
        Assert.Equal(5999, ipv6.Port);
    }

    [Fact]
    public void ToNpgsqlConnectionString_KeywordString_ReturnedUnchanged()
    {
        const string ConnectionString = "Host=db;Database=salsa";

        Assert.Equal(ConnectionString, DataStoreFactory.ToNpgsqlConnectionString(ConnectionString));
    }

    [Fact]
    public async Task Create_NoConnectionString_GivesSqliteAtThePath()
    {
        using var directory = new TemporaryDirectory();

        await using var store = DataStoreFactory.Create(new StoreOptions { ConnectionString = " ", SqlitePath = directory.Combine("x.db") });

        Assert.Equal(directory.Combine("x.db"), Assert.IsType<SqliteDataStore>(store).Path);
    }

    [Fact]
    public async Task Create_PostgresUri_GivesPostgresStore()
    {
        await using var store = DataStoreFactory.Create(new StoreOptions { ConnectionString = "postgres://u:secret@db.example:6543/salsa" });

        Assert.Equal("db.example:6543/salsa", Assert.IsType<PostgresDataStore>(store).Location);
    }

    [Fact]
    public void Create_UnrecognisedConnectionString_ThrowsArgumentExceptionSayingWhatIsExpected()
    {
        var error = Assert.Throws<ArgumentException>(() => DataStoreFactory.Create(new StoreOptions { ConnectionString = "Data Source=/tmp/salsa.db" }));

        Assert.Contains("Host=", error.Message, StringComparison.Ordinal);
        Assert.Contains("Store:SqlitePath", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AddDataStore_EmptyConfiguration_UsesSqliteUnderTheCurrentDirectory()
    {
        var services = new ServiceCollection().AddLogging().AddDataStore(new ConfigurationBuilder().Build());
        await using var provider = services.BuildServiceProvider();

        var store = Assert.IsType<SqliteDataStore>(provider.GetRequiredService<IDataStore>());

        Assert.Equal(Path.Combine(Directory.GetCurrentDirectory(), ".salsa", "salsa.db"), store.Path);
        Assert.Same(store, provider.GetRequiredService<IDataStore>());
    }

    [Fact]
    public void AddDataStore_UnrecognisedConnectionString_ThrowsAtRegistration()
    {
        var configuration = Configuration(("ConnectionStrings:salsa", "Data Source=x.db"));

        var refused = Assert.Throws<Microsoft.Extensions.Options.OptionsValidationException>(() => new ServiceCollection().AddDataStore(configuration));
        Assert.Contains("ConnectionStrings:salsa", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AddDataStore_HostStartsWithSqlitePath_StoreIsInitialisedAndDisposedWithTheHost()
    {
        using var directory = new TemporaryDirectory();
        var path = directory.Combine("nested", "salsa.db");
        var builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings());
        builder.Configuration.AddConfiguration(Configuration(("Store:SqlitePath", path)));
        builder.Services.AddLogging().AddDataStore(builder.Configuration);
        var job = TestData.Job(TestData.UniqueService("hosted"));

        using (var host = builder.Build())
        {
            await host.StartAsync(Ct);
            var store = host.Services.GetRequiredService<IDataStore>();
            Assert.Equal(path, Assert.IsType<SqliteDataStore>(store).Path);
            await store.InsertJobAsync(job, Ct);
            await host.StopAsync(Ct);
        }

        // The host disposed the store; a new one on the same file (a restarted service) sees the job.
        await using var reopened = new SqliteDataStore(path);
        await reopened.InitializeAsync(Ct);
        Assert.Equal(job, await reopened.GetJobAsync(job.Id, Ct));
    }

    [Fact]
    public async Task AddDataStore_HostStartsWithPostgresConnectionString_StoreIsInitialised()
    {
        var connectionString = await postgres.NewDatabaseAsync();
        var builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings());
        builder.Configuration.AddConfiguration(Configuration(("ConnectionStrings:salsa", connectionString)));
        builder.Services.AddLogging().AddDataStore(builder.Configuration);
        using var host = builder.Build();

        await host.StartAsync(Ct);

        var store = Assert.IsType<PostgresDataStore>(host.Services.GetRequiredService<IDataStore>());
        var job = TestData.Job(TestData.UniqueService("hosted"));
        await store.InsertJobAsync(job, Ct);
        Assert.Equal(job, await store.GetJobAsync(job.Id, Ct));
        await host.StopAsync(Ct);
    }

    private static IConfiguration Configuration(params (string Key, string Value)[] values) =>
        new ConfigurationBuilder().AddInMemoryCollection(values.Select(v => new KeyValuePair<string, string?>(v.Key, v.Value))).Build();
}
