using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Grpc.Core;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Render;
using Salsa.Render;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Render;

[Collection(RenderCollection.Name)]
public sealed class RenderServiceTests(CensusPipelineFixture fixture, PostgresFixture postgres)
{
    /// <summary>The fill opacity of the map's cluster hulls (Salsa.Rendering's MapPainter.HullFillOpacity).</summary>
    private const double HullFillOpacity = 0.13;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static CallOptions Call => new(cancellationToken: Token);

    private CensusPipeline Pipeline => fixture.Pipeline;

    public static TheoryData<string> Stores => ["sqlite", "postgres"];

    [Theory]
    [MemberData(nameof(Stores))]
    public async Task CensusMapRest_IndianaClustering_SvgPngAndGeoJsonAgreeWithTheClustering(string storeName)
    {
        await using var onPostgres = storeName == "postgres" ? await CensusPipeline.StartAsync(await TestStore.PostgresAsync(postgres)) : null;
        var pipeline = onPostgres ?? Pipeline;
        var render = pipeline.Render.Rest;

        var job = await render.StartJobAsync("/api/render/census-map", new
        {
            pointsDatasetId = pipeline.Points.DatasetId,
            clusteringJobId = pipeline.Clustering.JobId,
            width = 900,
            height = 600,
            title = "Indiana, four clusters",
        });
        Assert.Equal(("render", RenderJobs.CensusMapKind), (job.Service, job.Kind));
        var final = await render.WaitAsync(job.JobId);
        Assert.True(final.State == "succeeded", final.Error);

        var geojson = JsonDocument.Parse(await render.GetByteArrayAsync($"/api/jobs/{job.JobId}/artifacts/{Artifacts.ClustersGeoJson}", Token));
        var features = Figures.Features(geojson);
        Assert.Equal(CensusPipeline.Clusters, features.Count);
        var populations = features.Select(f => f.GetProperty("properties").GetProperty("population").GetDouble()).ToArray();
        Assert.Equal(pipeline.Points.TotalWeight, populations.Sum(), 6);
        Assert.Equal(pipeline.Points.Count, features.Sum(f => f.GetProperty("properties").GetProperty("pointCount").GetInt32()));
        Assert.Equal(
            Enumerable.Range(0, CensusPipeline.Clusters).Select(c => pipeline.Assignments.Count(a => a == c)),
            features.Select(f => f.GetProperty("properties").GetProperty("pointCount").GetInt32()));
        Assert.All(features, f => Assert.Equal("Polygon", f.GetProperty("geometry").GetProperty("type").GetString()));
        var colours = features.Select(f => f.GetProperty("properties").GetProperty("color").GetString()!).ToList();
        Assert.Equal(CensusPipeline.Clusters, colours.Distinct().Count());

        using var svgResponse = await render.GetAsync($"/api/jobs/{job.JobId}/artifacts/{Artifacts.MapSvg}", Token);
        Assert.Equal("image/svg+xml", svgResponse.Content.Headers.ContentType?.MediaType);
        var svg = Figures.ParseSvg(await svgResponse.Content.ReadAsStringAsync(Token));
        Assert.Contains("Indiana, four clusters", svg.ToString(), StringComparison.Ordinal);
        // One colour per cluster: the hulls' fills are exactly the clusters' colours in the GeoJSON,
        // and each colour also fills that cluster's points.
        Assert.Equal(colours.Order(), Figures.FillsWithOpacity(svg, HullFillOpacity).Distinct().Order());
        Assert.Subset(Figures.FillsWithOpacity(svg, 1).ToHashSet(), colours.ToHashSet());

        var png = await render.GetByteArrayAsync($"/api/jobs/{job.JobId}/artifacts/{Artifacts.MapPng}", Token);
        Assert.Equal((900, 600), Figures.PngSize(png));

        var summary = (await render.GetFromJsonAsync<CensusMapSummary>($"/api/jobs/{job.JobId}/result", RestCalls.Json, Token))!;
        Assert.Equal((pipeline.Points.Count, CensusPipeline.Clusters, "annealing"), (summary.Points, summary.Clusters, summary.ClusteringService));
        Assert.Equal(populations, summary.ClusterPopulations);
    }

    [Fact]
    public async Task CensusMapGrpc_NamedServiceAndCounties_DefaultSizePng()
    {
        var request = new RenderCensusMapRequest
        {
            PointsDatasetId = Pipeline.Points.DatasetId.ToString(),
            ClusteringJobId = Pipeline.Clustering.JobId.ToString(),
            ClusteringService = "annealing",
            Counties = true,
        };

        var job = await new RenderClient(Pipeline.Render.Grpc).StartCensusMapAsync(request, Call);
        var jobs = new JobsClient(Pipeline.Render.Grpc);
        var final = await jobs.WatchToEndAsync(job.JobId, options: Call);

        Assert.Equal(JobState.Succeeded, final.State);
        Assert.Equal([Artifacts.ClustersGeoJson, Artifacts.MapPng, Artifacts.MapSvg], final.Artifacts.Select(a => a.Name).Order());
        var (png, contentType) = await jobs.DownloadArtifactAsync(job.JobId, Artifacts.MapPng, Call);
        Assert.Equal("image/png", contentType);
        Assert.Equal((1400, 900), Figures.PngSize(png));
    }

    [Fact]
    public async Task CensusMapRest_KMeansClustering_OneFeaturePerClusterSummingToThePopulation()
    {
        var render = Pipeline.Render.Rest;

        var job = await render.StartJobAsync("/api/render/census-map", new
        {
            pointsDatasetId = Pipeline.Points.DatasetId,
            clusteringJobId = Pipeline.KMeansClustering.JobId,
            clusteringService = "kmeans",
            counties = false,
        });
        var final = await render.WaitAsync(job.JobId);

        Assert.True(final.State == "succeeded", final.Error);
        var features = Figures.Features(JsonDocument.Parse(await render.GetByteArrayAsync($"/api/jobs/{job.JobId}/artifacts/{Artifacts.ClustersGeoJson}", Token)));
        Assert.Equal(CensusPipeline.KMeansClusters, features.Count);
        Assert.Equal(Pipeline.Points.TotalWeight, features.Sum(f => f.GetProperty("properties").GetProperty("population").GetDouble()), 6);
        Assert.Equal("kmeans", (await Pipeline.Render.GetJsonAsync<CensusMapSummary>($"/api/jobs/{job.JobId}/result")).ClusteringService);
    }

    [Fact]
    public async Task ScatterRest_MdsOfCensusPoints_ColouredByTheirClusters()
    {
        var clusters = CensusPipeline.EmbeddedItems.Select(i => Pipeline.Assignments[i]).ToArray();

        var job = await Pipeline.Render.Rest.StartJobAsync("/api/render/scatter", new { embeddingJobId = Pipeline.Embedding.JobId, clusters, width = 640, height = 480 });
        var final = await Pipeline.Render.Rest.WaitAsync(job.JobId);

        Assert.True(final.State == "succeeded", final.Error);
        var svg = Figures.ParseSvg(Encoding.UTF8.GetString(await Pipeline.Render.Rest.GetByteArrayAsync($"/api/jobs/{job.JobId}/artifacts/{Artifacts.ScatterSvg}", Token)));
        Assert.Contains("MDS embedding of 40 items", svg.ToString(), StringComparison.Ordinal);
        Assert.Equal((640, 480), Figures.PngSize(await Pipeline.Render.Rest.GetByteArrayAsync($"/api/jobs/{job.JobId}/artifacts/{Artifacts.ScatterPng}", Token)));
        var summary = (await Pipeline.Render.GetJsonAsync<ScatterSummary>($"/api/jobs/{job.JobId}/result"))!;
        Assert.Equal((40, 2, clusters.Max() + 1), (summary.Items, summary.Dimensions, summary.Clusters));
    }

    [Fact]
    public async Task ScatterGrpc_ClusteringJob_RenderJoinsEachItemToItsPointsCluster()
    {
        // The same plot as when the caller joins the items to their clusters itself: the service
        // reads the embedding's item indices and the clustering's assignments from the store.
        var joined = CensusPipeline.EmbeddedItems.Select(i => Pipeline.Assignments[i]).ToArray();
        var client = new RenderClient(Pipeline.Render.Grpc);
        var jobs = new JobsClient(Pipeline.Render.Grpc);

        var byJob = await client.StartScatterAsync(new RenderScatterRequest { EmbeddingJobId = Pipeline.Embedding.JobId.ToString(), ClusteringJobId = Pipeline.Clustering.JobId.ToString(), Title = "t" }, Call);
        var byList = await client.StartScatterAsync(new RenderScatterRequest { EmbeddingJobId = Pipeline.Embedding.JobId.ToString(), Clusters = { joined }, Title = "t" }, Call);

        Assert.Equal(JobState.Succeeded, (await jobs.WatchToEndAsync(byJob.JobId, options: Call)).State);
        Assert.Equal(JobState.Succeeded, (await jobs.WatchToEndAsync(byList.JobId, options: Call)).State);
        var (fromJob, _) = await jobs.DownloadArtifactAsync(byJob.JobId, Artifacts.ScatterPng, Call);
        var (fromList, _) = await jobs.DownloadArtifactAsync(byList.JobId, Artifacts.ScatterPng, Call);
        Assert.Equal(fromList, fromJob);
        var summary = (await Pipeline.Render.GetJsonAsync<ScatterSummary>($"/api/jobs/{byJob.JobId}/result"))!;
        Assert.Equal(joined.Max() + 1, summary.Clusters);
    }

    [Fact]
    public async Task ScatterGrpc_NoClusters_DefaultSizeAndTitle()
    {
        var job = await new RenderClient(Pipeline.Render.Grpc).StartScatterAsync(new RenderScatterRequest { EmbeddingJobId = Pipeline.Embedding.JobId.ToString(), Title = "Forty block groups" }, Call);
        var jobs = new JobsClient(Pipeline.Render.Grpc);

        Assert.Equal(JobState.Succeeded, (await jobs.WatchToEndAsync(job.JobId, options: Call)).State);
        var (png, _) = await jobs.DownloadArtifactAsync(job.JobId, Artifacts.ScatterPng, Call);
        Assert.Equal((900, 760), Figures.PngSize(png));
        var (svg, contentType) = await jobs.DownloadArtifactAsync(job.JobId, Artifacts.ScatterSvg, Call);
        Assert.Equal("image/svg+xml", contentType);
        Assert.Contains("Forty block groups", Figures.ParseSvg(Encoding.UTF8.GetString(svg)).ToString(), StringComparison.Ordinal);
    }
}
