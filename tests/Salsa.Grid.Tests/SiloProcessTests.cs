using System.Net;
using System.Text.Json;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.KMeans;
using Salsa.Grid.Annealing;
using Salsa.Grid.KMeans;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Grid.Tests;

/// <summary>
/// Silos as separate processes joined through PostgreSQL membership (over mutual TLS, as beyond
/// loopback they must), a client that starts and watches jobs, and silos killed outright (SIGKILL) in the middle of a job: the job completes with
/// the bits of the grid computed in one process, whatever the topology did meanwhile.
/// </summary>
public sealed class SiloProcessTests(PostgresFixture postgres)
{
    private const int Partitions = 12;
    private static readonly AnnealingOptions Options = new() { MaxClusters = 12, CoolingFactor = 0.97, FixedCooling = true }; // long enough to kill a silo mid-job and see checkpoints after (0.5 s apart)
    private static readonly KMeansOptions KMeansOptions = new() { Clusters = 40, Restarts = 12, Seed = 2 };

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task ThreeSiloProcesses_JobHasTheBitsOfTheGridInOneProcess()
    {
        await using var cluster = await ProcessCluster.StartAsync(postgres, 3);

        var job = await cluster.StartJobAsync();
        var (view, result) = await Jobs.ResultAsync(cluster.Grains, job, Token);

        Mixture.AssertSameBits(ProcessCluster.Reference, result);
        Assert.Equal(3, view.Silos.Length);
        Assert.Equal(0, view.Resumes);

        // What a silo tells over REST: the members, the job, the Orleans dashboard.
        using var http = new HttpClient { BaseAddress = cluster.Silos[0].Rest };
        var members = JsonDocument.Parse(await http.GetStringAsync("api/cluster", Token)).RootElement.GetProperty("silos");
        Assert.Equal(3, members.EnumerateArray().Count(m => m.GetProperty("status").GetString() == "Active"));
        var jobView = JsonDocument.Parse(await http.GetStringAsync($"api/cluster/jobs/annealing/{job}", Token)).RootElement;
        Assert.Equal("succeeded", jobView.GetProperty("status").GetString());
        Assert.Equal(Partitions, jobView.GetProperty("partitions").GetInt32());
        using var unknown = await http.GetAsync($"api/cluster/jobs/annealing/{Guid.NewGuid()}", Token);
        Assert.Equal(HttpStatusCode.NotFound, unknown.StatusCode);
        using var dashboard = await http.GetAsync("dashboard/", Token);
        Assert.Equal(HttpStatusCode.OK, dashboard.StatusCode);
        var version = JsonDocument.Parse(await http.GetStringAsync("api/version", Token)).RootElement;
        Assert.Equal(("silo", Release.Version), (version.GetProperty("service").GetString(), version.GetProperty("version").GetString()));
    }

    [Fact]
    public async Task PartitionSiloKilledMidJob_PartitionsMoveAndTheJobEndsWithTheSameBits()
    {
        await using var cluster = await ProcessCluster.StartAsync(postgres, 3);
        var job = await cluster.StartJobAsync();
        var running = await Jobs.WaitAsync(cluster.Grains, job, v => v.Checkpoints >= 1 && v.Silos.Length == 3, Token);
        Assert.Equal(JobState.Running, running.Status);

        var victim = cluster.Silos.First(s => !s.Is(running.Coordinator));
        victim.Kill();
        var (view, result) = await Jobs.ResultAsync(cluster.Grains, job, Token);

        Mixture.AssertSameBits(ProcessCluster.Reference, result);
        Assert.Equal(0, view.Resumes);
        Assert.True(view.Passes.Retries > 0, "No partition was asked again after its silo was killed.");
        // Where the job computes now: the dead silo is a former one, not one of its silos.
        Assert.DoesNotContain(view.Silos, victim.Is);
        Assert.Contains(view.FormerSilos, victim.Is);
        Assert.Equal(2, view.Silos.Length);
    }

    [Fact]
    public async Task CoordinatorSiloKilledMidJob_JobResumesFromItsCheckpointWithTheSameBits()
    {
        await using var cluster = await ProcessCluster.StartAsync(postgres, 3);
        var job = await cluster.StartJobAsync();
        var running = await Jobs.WaitAsync(cluster.Grains, job, v => v.Checkpoints >= 2, Token);
        Assert.Equal(JobState.Running, running.Status);

        var coordinator = cluster.Silos.Single(s => s.Is(running.Coordinator));
        coordinator.Kill();
        var (view, result) = await Jobs.ResultAsync(cluster.Grains, job, Token);

        Mixture.AssertSameBits(ProcessCluster.Reference, result);
        Assert.Equal(1, view.Resumes);
        Assert.False(coordinator.Is(view.Coordinator));
        Assert.True(view.Checkpoints > running.Checkpoints);
        Assert.DoesNotContain(view.Silos, coordinator.Is);
        Assert.Contains(view.FormerSilos, coordinator.Is);
    }

    [Fact]
    public async Task KMeansCoordinatorSiloKilledMidJob_JobResumesFromItsCheckpointWithTheSameBits()
    {
        await using var cluster = await ProcessCluster.StartAsync(postgres, 3);
        var job = Guid.NewGuid();
        await cluster.Grains.GetGrain<IKMeansJobGrain>(job).StartAsync(KMeansJobSpec.From(ProcessCluster.DatasetId, Partitions, KMeansOptions));
        var running = await Jobs.WaitAsync<IKMeansJobGrain>(cluster.Grains, job, v => v.Checkpoints >= 2, Token);
        Assert.Equal(JobState.Running, running.Status);

        var coordinator = cluster.Silos.Single(s => s.Is(running.Coordinator));
        coordinator.Kill();
        var (view, result) = await Jobs.ResultAsync<IKMeansJobGrain, KMeansResult>(cluster.Grains, job, Token);

        Mixture.AssertSameBits(ProcessCluster.KMeansReference, result);
        Assert.Equal(1, view.Resumes);
        Assert.False(coordinator.Is(view.Coordinator));
    }

    [Fact]
    public async Task SiloJoiningMidJob_DoesNotChangeTheResult()
    {
        await using var cluster = await ProcessCluster.StartAsync(postgres, 2);
        var job = await cluster.StartJobAsync();
        await Jobs.WaitAsync(cluster.Grains, job, v => v.Checkpoints >= 1, Token);

        await cluster.AddSiloAsync();
        var (view, result) = await Jobs.ResultAsync(cluster.Grains, job, Token);

        Mixture.AssertSameBits(ProcessCluster.Reference, result);
        Assert.Equal(JobState.Succeeded, view.Status);
    }

    [Fact]
    public async Task SilosOnSeparateHosts_NetworkNamespaces_JobHasTheBitsOfTheGridInOneProcess()
    {
        await using var network = await TestNetwork.CreateAsync(3, Token);
        await using var server = await PostgresServer.StartAsync([network.Bridge], Token);
        await server.CreateDatabaseAsync("hosts", Token);
        var connectionString = server.ConnectionStringFor("hosts", network.Bridge);

        await using var cluster = await ProcessCluster.StartAsync(connectionString, [.. network.Hosts.Select(h => ((string?)h.Namespace, h.Address))]);
        var job = await cluster.StartJobAsync();
        var (view, result) = await Jobs.ResultAsync(cluster.Grains, job, Token);

        Mixture.AssertSameBits(ProcessCluster.Reference, result);
        Assert.Equal(3, view.Silos.Length);
        Assert.All(view.Silos, silo => Assert.Contains(network.Hosts, h => silo.StartsWith($"S{h.Address}:", StringComparison.Ordinal)));
    }

    /// <summary>Silo processes, the dataset in their PostgreSQL store, and a cluster client.</summary>
    private sealed class ProcessCluster : IAsyncDisposable
    {
        private static readonly Lazy<(Mixture Mixture, AnnealingResult Reference)> s_data = new(() =>
        {
            var mixture = new Mixture(15_013, 3);
            return (mixture, mixture.Reference(Partitions, Options));
        });

        private static readonly Lazy<KMeansResult> s_kmeans = new(() => s_data.Value.Mixture.Reference(Partitions, KMeansOptions));

        private readonly string _connectionString;
        private readonly string _clusterId = $"p{Guid.NewGuid():N}";
        private IHost _client = null!;

        private ProcessCluster(string connectionString) => _connectionString = connectionString;

        public List<SiloProcess> Silos { get; } = [];

        public IGrainFactory Grains => _client.Services.GetRequiredService<IClusterClient>();

        public static AnnealingResult Reference => s_data.Value.Reference;

        public static Guid DatasetId => s_data.Value.Mixture.Id;

        public static KMeansResult KMeansReference => s_kmeans.Value;

        public static async Task<ProcessCluster> StartAsync(PostgresFixture postgres, int silos) =>
            await StartAsync(await postgres.NewDatabaseAsync(), [.. Enumerable.Range(0, silos).Select(_ => ((string?)null, IPAddress.Loopback))]);

        /// <summary>A silo per host: in its network namespace (null: this one), bound to its address.</summary>
        public static async Task<ProcessCluster> StartAsync(string connectionString, IReadOnlyList<(string? Namespace, IPAddress Address)> hosts)
        {
            var cluster = new ProcessCluster(connectionString);
            cluster.Silos.AddRange(await Task.WhenAll(hosts.Select(h => cluster.StartSiloAsync(h.Address.ToString(), h.Namespace))));
            var builder = Host.CreateApplicationBuilder();
            builder.Logging.SetMinimumLevel(LogLevel.Warning);
            builder.Configuration[$"ConnectionStrings:{DataStoreServiceCollectionExtensions.ConnectionStringName}"] = cluster._connectionString;
            builder.Services.AddDataStore(builder.Configuration);
            builder.AddSalsaClusterClient(new SiloSettings { ClusterId = cluster._clusterId, ConnectionString = cluster._connectionString, Certificate = ClusterCertificates.Shared.Certificate });
            cluster._client = builder.Build();
            await cluster._client.StartAsync(Token);
            await s_data.Value.Mixture.StoreAsync(cluster._client.Services.GetRequiredService<IDataStore>(), Token);
            return cluster;
        }

        public async Task AddSiloAsync() => Silos.Add(await StartSiloAsync());

        /// <summary>A silo process of this cluster; every connection between them and to the client is mutual TLS.</summary>
        private Task<SiloProcess> StartSiloAsync(string address = "127.0.0.1", string? netns = null) =>
            SiloProcess.StartAsync(_connectionString, _clusterId, Token, address, netns, [$"--Cluster:Tls:Certificate={ClusterCertificates.Shared.Path}"]);

        public async Task<Guid> StartJobAsync()
        {
            var job = Guid.NewGuid();
            await Grains.GetGrain<IAnnealingJobGrain>(job).StartAsync(AnnealingJobSpec.From(s_data.Value.Mixture.Id, Partitions, Options));
            return job;
        }

        public async ValueTask DisposeAsync()
        {
            await _client.StopAsync(CancellationToken.None);
            _client.Dispose();
            foreach (var silo in Silos)
            {
                silo.Dispose();
            }
        }
    }
}
