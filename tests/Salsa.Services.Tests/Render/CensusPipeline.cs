using System.Net.Http.Json;
using Salsa.Annealing;
using Salsa.Census;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Mds;
using Salsa.Render;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Render;

/// <summary>
/// The census workflow over services that share one store: the census service imports
/// indiana-1000 and queries it into projected points, the annealing service clusters them, the
/// MDS service embeds some of them, and the render service draws what they made.
/// </summary>
public sealed class CensusPipeline : IAsyncDisposable
{
    public const int Clusters = 4;

    /// <summary>The points the MDS job embeds: every 25th block group.</summary>
    public static readonly int[] EmbeddedItems = [.. Enumerable.Range(0, 40).Select(i => i * 25)];

    private CensusPipeline(ServiceUnderTest<CensusService> census, ServiceUnderTest<AnnealingService> annealing, ServiceUnderTest<MdsService> mds, ServiceUnderTest<RenderService> render) =>
        (Census, Annealing, Mds, Render) = (census, annealing, mds, render);

    public ServiceUnderTest<CensusService> Census { get; }

    public ServiceUnderTest<AnnealingService> Annealing { get; }

    public ServiceUnderTest<MdsService> Mds { get; }

    public ServiceUnderTest<RenderService> Render { get; }

    /// <summary>The census query's points (dense 2-D km, population weights, projection origin in metadata).</summary>
    public DatasetView Points { get; private set; } = null!;

    /// <summary>The census import itself (a census dataset, not projected).</summary>
    public DatasetView Import { get; private set; } = null!;

    /// <summary>A succeeded annealing job on <see cref="Points"/>.</summary>
    public JobView Clustering { get; private set; } = null!;

    public int[] Assignments { get; private set; } = [];

    /// <summary>A succeeded 2-D MDS job of <see cref="EmbeddedItems"/>.</summary>
    public JobView Embedding { get; private set; } = null!;

    public static async Task<CensusPipeline> StartAsync(TestStore store)
    {
        var pipeline = new CensusPipeline(
            await ServiceUnderTest.StartAsync<CensusService>(store),
            await ServiceUnderTest.StartAsync<AnnealingService>(store),
            await ServiceUnderTest.StartAsync<MdsService>(store),
            await ServiceUnderTest.StartAsync<RenderService>(store));
        await pipeline.RunAsync();
        return pipeline;
    }

    public async ValueTask DisposeAsync()
    {
        await Render.DisposeAsync();
        await Mds.DisposeAsync();
        await Annealing.DisposeAsync();
        await Census.DisposeAsync();
    }

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private async Task RunAsync()
    {
        Import = await PostAsync<DatasetView>(Census.Rest, "/api/census/imports", new { source = "indiana-1000" });
        Points = await PostAsync<DatasetView>(Census.Rest, "/api/census/queries", new { datasetId = Import.DatasetId });
        Clustering = await Annealing.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = Points.DatasetId, maxClusters = Clusters });
        Embedding = await Mds.Rest.StartJobAsync("/api/mds/jobs", new { datasetId = Points.DatasetId, dimensions = 2, items = EmbeddedItems });
        Clustering = await Annealing.Rest.WaitAsync(Clustering.JobId);
        Embedding = await Mds.Rest.WaitAsync(Embedding.JobId);
        Assert.Equal("succeeded", Clustering.State);
        Assert.Equal("succeeded", Embedding.State);
        Assignments = ArtifactFormats.ReadInt32s(await Annealing.Rest.GetByteArrayAsync($"/api/jobs/{Clustering.JobId}/artifacts/assignments", Token));
    }

    private static async Task<T> PostAsync<T>(HttpClient client, string path, object body)
    {
        using var response = await client.PostAsJsonAsync(path, body, RestCalls.Json, Token);
        await RestCalls.EnsureAsync(response);
        return (await response.Content.ReadFromJsonAsync<T>(RestCalls.Json, Token))!;
    }
}

/// <summary>The census pipeline on SQLite, shared by the render tests of one collection.</summary>
public sealed class CensusPipelineFixture : IAsyncLifetime
{
    private readonly TemporaryDirectory _directory = new();

    public CensusPipeline Pipeline { get; private set; } = null!;

    public async ValueTask InitializeAsync() => Pipeline = await CensusPipeline.StartAsync(TestStore.Sqlite(_directory));

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
