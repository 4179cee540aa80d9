using System.Net.Http.Json;
using Salsa.Annealing;
using Salsa.Census;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.KMeans;
using Salsa.Mds;
using Salsa.Render;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Render;

/// <summary>
/// The census workflow over services that share one store: the census service imports
/// indiana-1000 and queries it into projected points, the annealing and k-means services cluster
/// them, the MDS service embeds some of them, and the render service draws what they made.
/// </summary>
public sealed class CensusPipeline : IAsyncDisposable
{
    /// <summary>The annealing job's clusters.</summary>
    public const int Clusters = 4;

    public const int KMeansClusters = 3;

    /// <summary>The points the MDS job embeds: every 25th block group.</summary>
    public static readonly int[] EmbeddedItems = [.. Enumerable.Range(0, 40).Select(i => i * 25)];

    private CensusPipeline(ServiceUnderTest<CensusService> census, ServiceUnderTest<AnnealingService> annealing, ServiceUnderTest<KMeansService> kmeans, ServiceUnderTest<MdsService> mds, ServiceUnderTest<RenderService> render) =>
        (Census, Annealing, KMeans, Mds, Render) = (census, annealing, kmeans, mds, render);

    public ServiceUnderTest<CensusService> Census { get; }

    public ServiceUnderTest<AnnealingService> Annealing { get; }

    public ServiceUnderTest<KMeansService> KMeans { get; }

    public ServiceUnderTest<MdsService> Mds { get; }

    public ServiceUnderTest<RenderService> Render { get; }

    /// <summary>The census query's points (dense 2-D km, population weights, projection origin in metadata).</summary>
    public DatasetView Points { get; private set; } = null!;

    /// <summary>The census import itself (a census dataset, not projected).</summary>
    public DatasetView Import { get; private set; } = null!;

    /// <summary>A succeeded annealing job on <see cref="Points"/>.</summary>
    public JobView Clustering { get; private set; } = null!;

    public int[] Assignments { get; private set; } = [];

    /// <summary>A succeeded k-means job on <see cref="Points"/>.</summary>
    public JobView KMeansClustering { get; private set; } = null!;

    /// <summary>A succeeded 2-D MDS job of <see cref="EmbeddedItems"/>.</summary>
    public JobView Embedding { get; private set; } = null!;

    public static async Task<CensusPipeline> StartAsync(TestStore store)
    {
        var pipeline = new CensusPipeline(
            await ServiceUnderTest.StartAsync<CensusService>(store),
            await ServiceUnderTest.StartAsync<AnnealingService>(store),
            await ServiceUnderTest.StartAsync<KMeansService>(store),
            await ServiceUnderTest.StartAsync<MdsService>(store),
            await ServiceUnderTest.StartAsync<RenderService>(store));
        await pipeline.RunAsync();
        return pipeline;
    }

    public async ValueTask DisposeAsync()
    {
        await Render.DisposeAsync();
        await Mds.DisposeAsync();
        await KMeans.DisposeAsync();
        await Annealing.DisposeAsync();
        await Census.DisposeAsync();
    }

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private async Task RunAsync()
    {
        Import = await PostAsync<DatasetView>(Census.Rest, "/api/census/imports", new { source = "indiana-1000" });
        Points = await PostAsync<DatasetView>(Census.Rest, "/api/census/queries", new { datasetId = Import.DatasetId });
        Clustering = await Annealing.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = Points.DatasetId, maxClusters = Clusters });
        KMeansClustering = await KMeans.Rest.StartJobAsync("/api/kmeans/jobs", new { datasetId = Points.DatasetId, clusters = KMeansClusters });
        Embedding = await Mds.Rest.StartJobAsync("/api/mds/jobs", new { datasetId = Points.DatasetId, dimensions = 2, items = EmbeddedItems });
        Clustering = await Annealing.Rest.WaitAsync(Clustering.JobId);
        KMeansClustering = await KMeans.Rest.WaitAsync(KMeansClustering.JobId);
        Embedding = await Mds.Rest.WaitAsync(Embedding.JobId);
        Assert.Equal(["succeeded", "succeeded", "succeeded"], new[] { Clustering.State, KMeansClustering.State, Embedding.State });
        Assignments = ArtifactFormats.ReadInt32s(await Annealing.Rest.GetByteArrayAsync($"/api/jobs/{Clustering.JobId}/artifacts/assignments", Token));
    }

    private static async Task<T> PostAsync<T>(HttpClient client, string path, object body)
    {
        using var response = await client.PostAsJsonAsync(path, body, RestCalls.Json, Token);
        await RestCalls.EnsureAsync(response);
        return (await response.Content.ReadFromJsonAsync<T>(RestCalls.Json, Token))!;
    }
}

/// <summary>
/// The census pipeline on SQLite, shared by the render tests of one collection, and what the bad
/// requests name: points without a projection, a clustering of them, and a cancelled clustering.
/// </summary>
public sealed class CensusPipelineFixture : IAsyncLifetime
{
    private readonly TemporaryDirectory _directory = new();

    public CensusPipeline Pipeline { get; private set; } = null!;

    /// <summary>Dense 2-D points uploaded as they are: no projection in their metadata.</summary>
    public Guid Plain { get; private set; }

    /// <summary>A succeeded annealing job on <see cref="Plain"/>.</summary>
    public Guid PlainClustering { get; private set; }

    /// <summary>An annealing job on the census points, cancelled while it ran.</summary>
    public Guid Cancelled { get; private set; }

    public async ValueTask InitializeAsync()
    {
        Pipeline = await CensusPipeline.StartAsync(TestStore.Sqlite(_directory));
        var annealing = Pipeline.Annealing.Rest;
        Plain = (await Pipeline.Render.Rest.UploadCsvAsync("name=plain&kind=dense&dimension=2&weights=true", string.Join('\n', Fixtures.GmmCsv().Split('\n').Take(31)) + "\n")).DatasetId;
        PlainClustering = (await annealing.StartJobAsync("/api/annealing/jobs", new { datasetId = Plain, maxClusters = 2 })).JobId;
        Assert.Equal("succeeded", (await annealing.WaitAsync(PlainClustering)).State);
        Cancelled = (await annealing.StartJobAsync("/api/annealing/jobs", new { datasetId = Pipeline.Points.DatasetId, maxClusters = 5, coolingFactor = Fixtures.SlowCoolingFactor, fixedCooling = true })).JobId;
        await annealing.WaitForProgressAsync(Cancelled);
        using var cancel = await annealing.PostAsync($"/api/jobs/{Cancelled}/cancel", null, TestContext.Current.CancellationToken);
        await RestCalls.EnsureAsync(cancel);
        Assert.Equal("cancelled", (await annealing.WaitAsync(Cancelled)).State);
    }

    /// <summary>Replaces the placeholders of a request body with the ids they name.</summary>
    public string Resolve(string text) => text
        .Replace("$points", Pipeline.Points.DatasetId.ToString(), StringComparison.Ordinal)
        .Replace("$import", Pipeline.Import.DatasetId.ToString(), StringComparison.Ordinal)
        .Replace("$clustering", Pipeline.Clustering.JobId.ToString(), StringComparison.Ordinal)
        .Replace("$embedding", Pipeline.Embedding.JobId.ToString(), StringComparison.Ordinal)
        .Replace("$plainClustering", PlainClustering.ToString(), StringComparison.Ordinal)
        .Replace("$plain", Plain.ToString(), StringComparison.Ordinal)
        .Replace("$cancelled", Cancelled.ToString(), StringComparison.Ordinal);

    public async ValueTask DisposeAsync()
    {
        await Pipeline.DisposeAsync();
        _directory.Dispose();
    }
}

[CollectionDefinition(Name)]
public sealed class RenderCollection : ICollectionFixture<CensusPipelineFixture>
{
    public const string Name = "render";
}
