using System.Text;
using Google.Protobuf;
using Grpc.Core;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Render;
using Salsa.Hosting.Jobs;
using Salsa.Services.Tests.Support;

namespace Salsa.Services.Tests.Render;

[Collection(RenderCollection.Name)]
public sealed class RenderBadInputTests(CensusPipelineFixture fixture)
{
    private const string Unknown = "00000000-0000-0000-0000-000000000001";

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static CallOptions Call => new(cancellationToken: Token);

    private ServiceUnderTest<Salsa.Render.RenderService> Render => fixture.Pipeline.Render;

    public static TheoryData<string, int, string> BadMaps => new()
    {
        { "{\"pointsDatasetId\":", 400, "JSON" },
        { "{\"pointsDatasetId\":\"$points\"}", 400, "clusteringJobId" },
        { "{\"pointsDatasetId\":\"$points\",\"clusteringJobId\":\"$clustering\",\"width\":100}", 400, "width must be between 200 and 4096" },
        { "{\"pointsDatasetId\":\"$points\",\"clusteringJobId\":\"$clustering\",\"height\":20000}", 413, "20,000 pixels (height) exceed this service's limit of 4,096 (Salsa:Limits:MaxImageSide)" },
        { "{\"pointsDatasetId\":\"$points\",\"clusteringJobId\":\"$clustering\",\"title\":\"" + new string('t', 201) + "\"}", 400, "at most 200" },
        { "{\"pointsDatasetId\":\"" + Unknown + "\",\"clusteringJobId\":\"$clustering\"}", 404, "No dataset" },
        { "{\"pointsDatasetId\":\"$points\",\"clusteringJobId\":\"" + Unknown + "\"}", 404, "No job" },
        { "{\"pointsDatasetId\":\"$import\",\"clusteringJobId\":\"$clustering\"}", 400, "is census with dimension 2; a census map needs the dense 2-D points of a census query" },
        { "{\"pointsDatasetId\":\"$plain\",\"clusteringJobId\":\"$plainClustering\"}", 400, "does not record the projection of its points (metadata 'origin_latitude'" },
        { "{\"pointsDatasetId\":\"$points\",\"clusteringJobId\":\"$plainClustering\"}", 400, "not the points dataset" },
        { "{\"pointsDatasetId\":\"$points\",\"clusteringJobId\":\"$embedding\"}", 400, "is a mds job of the mds service and left no 'clustering' file; a census map needs a clustering job" },
        { "{\"pointsDatasetId\":\"$points\",\"clusteringJobId\":\"$cancelled\"}", 409, "ended cancelled" },
        { "{\"pointsDatasetId\":\"$points\",\"clusteringJobId\":\"$clustering\",\"clusteringService\":\"kmeans\"}", 400, "not of the kmeans service" },
        { "{\"pointsDatasetId\":\"$points\",\"clusteringJobId\":\"$clustering\",\"clusteringService\":\"fingerprints\"}", 400, "not of the fingerprints service" },
    };

    public static TheoryData<string, int, string> BadScatters => new()
    {
        { "{\"embeddingJobId\":\"nope\"}", 400, "Guid" },
        { "{\"embeddingJobId\":\"" + Unknown + "\"}", 404, "No job" },
        { "{\"embeddingJobId\":\"$clustering\"}", 400, "left no 'embedding' file; a scatter plot needs an MDS job" },
        { "{\"embeddingJobId\":\"$embedding\",\"clusteringJobId\":\"$embedding\"}", 400, "left no 'clustering' file; colouring a scatter plot by cluster needs a clustering job" },
        { "{\"embeddingJobId\":\"$embedding\",\"clusteringJobId\":\"$clustering\",\"clusters\":[0]}", 400, "not both" },
        { "{\"embeddingJobId\":\"$embedding\",\"clusters\":[0,1,2]}", 400, "3 clusters for the 40 embedded items" },
        { "{\"embeddingJobId\":\"$embedding\",\"clusters\":[" + string.Join(',', Enumerable.Range(0, 40).Select(i => i == 5 ? -1 : 0)) + "]}", 400, "clusters[5] is -1" },
        { "{\"embeddingJobId\":\"$embedding\",\"width\":5000}", 413, "(Salsa:Limits:MaxImageSide)" },
        { "{\"embeddingJobId\":\"$embedding\",\"width\":2147483647}", 413, "(Salsa:Limits:MaxImageSide)" },
    };

    [Theory]
    [MemberData(nameof(BadMaps))]
    public Task StartCensusMapRest_BadRequest_ClearProblemAndNothingStarted(string body, int status, string mentions) =>
        AssertRefusedAsync("/api/render/census-map", body, status, mentions);

    [Theory]
    [MemberData(nameof(BadScatters))]
    public Task StartScatterRest_BadRequest_ClearProblemAndNothingStarted(string body, int status, string mentions) =>
        AssertRefusedAsync("/api/render/scatter", body, status, mentions);

    [Fact]
    public async Task StartCensusMapGrpc_CancelledOrUnknownClustering_FailedPreconditionOrNotFound()
    {
        var client = new RenderClient(Render.Grpc);
        var request = new RenderCensusMapRequest { PointsDatasetId = fixture.Pipeline.Points.DatasetId.ToString(), ClusteringJobId = fixture.Cancelled.ToString() };

        var cancelled = await Assert.ThrowsAsync<RpcException>(async () => await client.StartCensusMapAsync(request, Call));
        var unknown = await Assert.ThrowsAsync<RpcException>(async () => await client.StartCensusMapAsync(request.Clone().With(r => r.ClusteringJobId = Unknown), Call));
        var malformed = await Assert.ThrowsAsync<RpcException>(async () => await client.StartCensusMapAsync(request.Clone().With(r => r.PointsDatasetId = "points"), Call));

        Assert.Equal(StatusCode.FailedPrecondition, cancelled.StatusCode);
        Assert.Contains("ended cancelled", cancelled.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(StatusCode.NotFound, unknown.StatusCode);
        Assert.Equal(StatusCode.InvalidArgument, malformed.StatusCode);
    }

    [Fact]
    public async Task StartScatterGrpc_ClusteringJobOrWrongClusterCount_InvalidArgument()
    {
        var client = new RenderClient(Render.Grpc);

        var wrongKind = await Assert.ThrowsAsync<RpcException>(async () =>
            await client.StartScatterAsync(new RenderScatterRequest { EmbeddingJobId = fixture.Pipeline.Clustering.JobId.ToString() }, Call));
        var wrongCount = await Assert.ThrowsAsync<RpcException>(async () =>
            await client.StartScatterAsync(new RenderScatterRequest { EmbeddingJobId = fixture.Pipeline.Embedding.JobId.ToString(), Clusters = { 0, 1 } }, Call));

        Assert.Equal(StatusCode.InvalidArgument, wrongKind.StatusCode);
        Assert.Contains("a scatter plot needs an MDS job", wrongKind.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(StatusCode.InvalidArgument, wrongCount.StatusCode);
        Assert.Contains("2 clusters for the 40 embedded items", wrongCount.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task StartGrpc_SideOverTheLimit_ResourceExhaustedNamingTheKeyAndServiceKeepsServing()
    {
        var client = new RenderClient(Render.Grpc);
        var before = await JobCountAsync();
        var map = new RenderCensusMapRequest { PointsDatasetId = fixture.Pipeline.Points.DatasetId.ToString(), ClusteringJobId = fixture.Pipeline.Clustering.JobId.ToString(), Width = 4097 };

        var tooWide = await Assert.ThrowsAsync<RpcException>(async () => await client.StartCensusMapAsync(map, Call));
        var tooTall = await Assert.ThrowsAsync<RpcException>(async () =>
            await client.StartScatterAsync(new RenderScatterRequest { EmbeddingJobId = fixture.Pipeline.Embedding.JobId.ToString(), Height = 5000 }, Call));

        Assert.Equal(StatusCode.ResourceExhausted, tooWide.StatusCode);
        Assert.Contains("4,097 pixels (width) exceed this service's limit of 4,096 (Salsa:Limits:MaxImageSide)", tooWide.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(StatusCode.ResourceExhausted, tooTall.StatusCode);
        Assert.Contains("(Salsa:Limits:MaxImageSide)", tooTall.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(before, await JobCountAsync());
        var job = await client.StartScatterAsync(new RenderScatterRequest { EmbeddingJobId = fixture.Pipeline.Embedding.JobId.ToString(), Width = 400, Height = 300 }, Call);
        Assert.Equal(JobState.Succeeded, (await new JobsClient(Render.Grpc).WatchToEndAsync(job.JobId, options: Call)).State);
    }

    [Fact]
    public async Task StartCensusMapGrpc_TruncatedMessage_InvalidArgumentAndServiceKeepsServing()
    {
        var whole = new RenderCensusMapRequest { PointsDatasetId = fixture.Pipeline.Points.DatasetId.ToString(), ClusteringJobId = fixture.Pipeline.Clustering.JobId.ToString() }.ToByteArray();

        var (status, message) = await RawGrpc.CallAsync(Render.Ports.GrpcAddress, "/salsa.render.v1.Render/StartCensusMap", whole[..(whole.Length / 2)]);

        Assert.Equal((int)StatusCode.InvalidArgument, status);
        Assert.NotEmpty(message);
        var job = await new RenderClient(Render.Grpc).StartScatterAsync(new RenderScatterRequest { EmbeddingJobId = fixture.Pipeline.Embedding.JobId.ToString() }, Call);
        Assert.Equal(JobState.Succeeded, (await new JobsClient(Render.Grpc).WatchToEndAsync(job.JobId, options: Call)).State);
    }

    private async Task AssertRefusedAsync(string path, string body, int status, string mentions)
    {
        var before = await JobCountAsync();
        using var content = new StringContent(fixture.Resolve(body), Encoding.UTF8, "application/json");
        using var response = await Render.Rest.PostAsync(path, content, Token);

        var detail = await RestCalls.ProblemAsync(response, status);
        Assert.Contains(mentions, detail, StringComparison.OrdinalIgnoreCase);
        Assert.Equal(before, await JobCountAsync());
    }

    private async Task<int> JobCountAsync() => (await Render.GetJsonAsync<List<JobView>>("/api/jobs?limit=1000")).Count;
}

internal static class MessageEditing
{
    /// <summary>The message after <paramref name="edit"/> (for one-field variations of a request).</summary>
    public static T With<T>(this T message, Action<T> edit)
        where T : IMessage
    {
        edit(message);
        return message;
    }
}
