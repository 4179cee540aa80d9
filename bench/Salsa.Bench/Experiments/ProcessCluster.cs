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
    private ProcessCluster(IHost client, List<SiloProcess> silos) => (Client, Silos) = (client, silos);

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
    public static async Task<ProcessCluster> StartAsync(string connectionString, int silos, CancellationToken cancellationToken, IEnumerable<string>? settings = null)
    {
        var clusterId = $"bench-{Guid.NewGuid():N}";
        var processes = (await Task.WhenAll(Enumerable.Range(0, silos).Select(_ => SiloProcess.StartAsync(connectionString, clusterId, cancellationToken, settings: settings)))).ToList();
        var builder = Host.CreateApplicationBuilder();
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        builder.Configuration[$"ConnectionStrings:{DataStoreServiceCollectionExtensions.ConnectionStringName}"] = connectionString;
        builder.Services.AddDataStore(builder.Configuration);
        builder.AddSalsaClusterClient(new SiloSettings { ClusterId = clusterId, ConnectionString = connectionString });
        var client = builder.Build();
        await client.StartAsync(cancellationToken);
        return new ProcessCluster(client, processes);
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
