using System.Globalization;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Salsa.Grid;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Bench.Experiments;

/// <summary>Silo processes on one PostgreSQL, and a client that reaches them (and the store).</summary>
internal sealed class ProcessCluster : IAsyncDisposable
{
    private readonly string _connectionString;
    private readonly string _clusterId;
    private readonly IEnumerable<string>? _settings;

    private ProcessCluster(IHost client, List<SiloProcess> silos, string connectionString, string clusterId, IEnumerable<string>? settings) =>
        (Client, Silos, _connectionString, _clusterId, _settings) = (client, silos, connectionString, clusterId, settings);

    public IHost Client { get; }

    public List<SiloProcess> Silos { get; }

    public IGrainFactory Grains => Client.Services.GetRequiredService<IClusterClient>();

    /// <summary>
    /// <paramref name="silos"/> silo processes sharing this machine's cores: each computes on its
    /// share (<c>Cluster:Ranks</c> = cores ÷ silos, at least one), as a deployment of several silos
    /// on one host would be configured — ranks spinning on cores another silo needs cost several
    /// times the work, and would be counted as messaging.
    /// </summary>
    public static Task<ProcessCluster> SharingCoresAsync(string connectionString, int silos, CancellationToken cancellationToken) =>
        StartAsync(connectionString, silos, cancellationToken, [string.Create(CultureInfo.InvariantCulture, $"--Cluster:Ranks={RanksSharing(silos)}")]);

    /// <summary>The ranks each of <paramref name="silos"/> silos on this machine computes on.</summary>
    public static int RanksSharing(int silos) => Math.Max(1, Environment.ProcessorCount / silos);

    /// <summary><paramref name="silos"/> silo processes (each given <paramref name="settings"/>, e.g. <c>--Cluster:Ranks=1</c>) and a client.</summary>
    public static async Task<ProcessCluster> StartAsync(string connectionString, int silos, CancellationToken cancellationToken, IEnumerable<string>? settings = null,
        IReadOnlyDictionary<string, string>? environment = null)
    {
        var clusterId = $"bench-{Guid.NewGuid():N}";
        var processes = (await Task.WhenAll(Enumerable.Range(0, silos).Select(_ => SiloProcess.StartAsync(connectionString, clusterId, cancellationToken, settings: settings, environment: environment)))).ToList();
        var builder = Host.CreateApplicationBuilder();
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        builder.Configuration[$"ConnectionStrings:{DataStoreServiceCollectionExtensions.ConnectionStringName}"] = connectionString;
        builder.Services.AddDataStore(builder.Configuration);
        builder.AddSalsaClusterClient(new SiloSettings { ClusterId = clusterId, ConnectionString = connectionString });
        var client = builder.Build();
        await client.StartAsync(cancellationToken);
        var cluster = new ProcessCluster(client, processes, connectionString, clusterId, settings);
        await cluster.QuietAsync(cancellationToken);
        return cluster;
    }

    /// <summary>One more silo process joining this cluster, with the settings the others were given.</summary>
    public async Task<SiloProcess> AddSiloAsync(CancellationToken cancellationToken)
    {
        var silo = await SiloProcess.StartAsync(_connectionString, _clusterId, cancellationToken, settings: _settings);
        Silos.Add(silo);
        return silo;
    }

    /// <summary>The cluster's active silos, by identity, as its membership says (a management grain's view).</summary>
    public IReadOnlyCollection<string> ActiveSilos() =>
        [.. Grains.GetGrain<IManagementGrain>(0).GetHosts(onlyActive: true).GetAwaiter().GetResult().Keys.Select(s => s.ToString())];

    /// <summary>How long the silos took, after they started, to go quiet (<see cref="QuietAsync"/>).</summary>
    public TimeSpan SettledAfter { get; private set; }

    /// <summary>
    /// Waits until every silo is quiet — none used more than 5 % of a core over the last second — or
    /// a minute has passed. A silo that has just started compiles its code again at the JIT's upper
    /// tier in the background for ten to twenty seconds (some 0.7 s of CPU a second on this machine,
    /// measured with perf): a pass timed meanwhile runs on what is left of the cores and measures the
    /// JIT, not the silo. Call it again after work that compiles code of its own (loading the partitions).
    /// </summary>
    public async Task QuietAsync(CancellationToken cancellationToken)
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();
        var processes = Silos.Select(s => System.Diagnostics.Process.GetProcessById(s.ProcessId)).ToArray();
        TimeSpan[] Used() => [.. processes.Select(p => { p.Refresh(); return p.TotalProcessorTime; })];
        var before = Used();
        while (clock.Elapsed < TimeSpan.FromMinutes(1))
        {
            await Task.Delay(TimeSpan.FromSeconds(1), cancellationToken);
            var now = Used();
            var busiest = now.Zip(before, (n, b) => (n - b).TotalSeconds).Max();
            before = now;
            if (busiest < 0.05)
            {
                break;
            }
        }

        SettledAfter = clock.Elapsed;
        foreach (var process in processes)
        {
            process.Dispose();
        }
    }

    public async ValueTask DisposeAsync()
    {
        await Client.StopAsync(CancellationToken.None);
        Client.Dispose();
        foreach (var silo in Silos)
        {
            silo.Dispose();
        }
    }
}
