using System.Net.Http.Json;
using Grpc.Net.Client;
using Microsoft.AspNetCore.Builder;
using Salsa.Hosting.Host;
using Salsa.Testing;

namespace Salsa.Services.Tests.Support;

/// <summary>Where a service under test keeps its state: a SQLite file or a PostgreSQL database.</summary>
public sealed record TestStore(string Name, IReadOnlyDictionary<string, string?> Settings)
{
    public static TestStore Sqlite(TemporaryDirectory directory) =>
        new("sqlite", new Dictionary<string, string?> { ["Store:SqlitePath"] = directory.Combine("salsa.db") });

    public static async Task<TestStore> PostgresAsync(PostgresFixture postgres) =>
        new("postgres", new Dictionary<string, string?> { ["ConnectionStrings:salsa"] = await postgres.NewDatabaseAsync() });

    /// <summary>The stores a store-dependent test runs on, by name.</summary>
    public static TheoryData<string> Names => ["sqlite", "postgres"];

    /// <summary>The store called <paramref name="name"/> (one of <see cref="Names"/>): a file in <paramref name="directory"/> or a new database.</summary>
    public static async Task<TestStore> CreateAsync(string name, TemporaryDirectory directory, PostgresFixture postgres) =>
        name == "sqlite" ? Sqlite(directory) : await PostgresAsync(postgres);

    public override string ToString() => Name;
}

/// <summary>Starts services under test.</summary>
public static class ServiceUnderTest
{
    /// <summary>Starts <typeparamref name="TService"/> on fresh ports; <paramref name="settings"/> override its configuration (e.g. limits).</summary>
    public static Task<ServiceUnderTest<TService>> StartAsync<TService>(TestStore store, IReadOnlyDictionary<string, string?>? settings = null)
        where TService : ISalsaService =>
        ServiceUnderTest<TService>.StartAsync(store, settings);
}

/// <summary>A running service under test, whatever its type: its ports and a client for each face.</summary>
public interface IRunningService : IAsyncDisposable
{
    ServicePorts Ports { get; }

    HttpClient Rest { get; }

    GrpcChannel Grpc { get; }
}

/// <summary>
/// A service as it runs for real: its own web application on two loopback Kestrel endpoints
/// (HTTP/1.1 REST, h2c gRPC), a real store, real clients. It can be stopped and started again on
/// the same ports and store, as a restarted process would be.
/// </summary>
public sealed class ServiceUnderTest<TService> : IRunningService
    where TService : ISalsaService
{
    private readonly Dictionary<string, string?> _settings;
    private WebApplication? _app;

    private ServiceUnderTest(Dictionary<string, string?> settings, ServicePorts ports)
    {
        _settings = settings;
        Ports = ports;
        Rest = new HttpClient { BaseAddress = ports.RestAddress, Timeout = TimeSpan.FromMinutes(2) };
        Grpc = GrpcChannel.ForAddress(ports.GrpcAddress);
    }

    public ServicePorts Ports { get; }

    public HttpClient Rest { get; }

    public GrpcChannel Grpc { get; }

    public IServiceProvider Services => _app?.Services ?? throw new InvalidOperationException("The service is not running.");

    internal static async Task<ServiceUnderTest<TService>> StartAsync(TestStore store, IReadOnlyDictionary<string, string?>? settings)
    {
        ArgumentNullException.ThrowIfNull(store);
        var ports = new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
        var all = new Dictionary<string, string?>(ServiceHostSettings.PortSettings(ports))
        {
            ["Logging:LogLevel:Default"] = "Warning",
            ["Logging:LogLevel:Salsa"] = "Warning",
        };
        foreach (var (key, value) in store.Settings.Concat(settings ?? new Dictionary<string, string?>()))
        {
            all[key] = value;
        }

        var service = new ServiceUnderTest<TService>(all, ports);
        await service.StartAgainAsync();
        return service;
    }

    /// <summary>Stops the service (running jobs are interrupted), as a process that is shut down.</summary>
    public async Task StopAsync()
    {
        if (_app is { } app)
        {
            _app = null;
            await app.StopAsync(TestContext.Current.CancellationToken);
            await app.DisposeAsync();
        }
    }

    /// <summary>Starts it again on the same ports and store.</summary>
    public async Task StartAgainAsync()
    {
        if (_app is not null)
        {
            throw new InvalidOperationException("The service is already running.");
        }

        var app = SalsaServiceHost.Create<TService>(new ServiceHostSettings { Settings = _settings, LoadAppSettings = false });
        await app.StartAsync(TestContext.Current.CancellationToken);
        _app = app;
    }

    public async Task<T> GetJsonAsync<T>(string path) =>
        (await Rest.GetFromJsonAsync<T>(path, RestCalls.Json, TestContext.Current.CancellationToken))!;

    public async ValueTask DisposeAsync()
    {
        await StopAsync();
        Rest.Dispose();
        Grpc.Dispose();
    }
}
