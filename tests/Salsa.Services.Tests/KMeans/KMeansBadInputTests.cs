using Google.Protobuf;
using Grpc.Core;
using Salsa.Contracts.Clients;
using Salsa.Contracts.KMeans;
using Salsa.KMeans;
using Salsa.Services.Tests.Support;

namespace Salsa.Services.Tests.KMeans;

/// <summary>The k-means service with small limits, fed bad input on both faces.</summary>
public sealed class KMeansBadInputFixture : BadInputFixture<KMeansService>;

public sealed class KMeansBadInputTests(KMeansBadInputFixture fixture) : IClassFixture<KMeansBadInputFixture>
{
    private const string StartPath = "/salsa.kmeans.v1.KMeans/Start";

    private ServiceUnderTest<KMeansService> Service => fixture.Service;

    public static TheoryData<string, int, string> BadStarts => new()
    {
        { "{\"datasetId\":", 400, "JSON" },
        { "[1,2]", 400, "JSON" },
        { "{\"datasetId\":\"not-a-guid\",\"clusters\":3}", 400, "Guid" },
        { "{\"clusters\":3}", 400, "datasetId" },
        { "{\"datasetId\":\"$gmm\"}", 400, "clusters" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":\"5\"}", 400, "clusters" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":3000000000}", 400, "clusters" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":0}", 400, "clusters must be at least 1; it is 0." },
        { "{\"datasetId\":\"$gmm\",\"clusters\":-2}", 400, "clusters must be at least 1; it is -2." },
        { "{\"datasetId\":\"$tiny\",\"clusters\":31}", 400, "number of points (30)" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":51}", 413, "MaxClusters" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":3,\"restarts\":0}", 400, "Restarts" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":3,\"restarts\":-1}", 400, "Restarts" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":3,\"restarts\":1.5}", 400, "restarts" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":3,\"maxIterations\":0}", 400, "maxIterations must be at least 1; it is 0." },
        { "{\"datasetId\":\"$gmm\",\"clusters\":3,\"maxIteration\":10}", 400, "maxIteration" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":3,\"restarts\":21}", 413, "21 restarts exceed this service's limit of 20 (Salsa:Limits:MaxRestarts)" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":3,\"restarts\":2147483647}", 413, "Salsa:Limits:MaxRestarts" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":3,\"maxIterations\":501}", 413, "501 iterations (maxIterations) exceed this service's limit of 500 (Salsa:Limits:MaxIterations)" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":3,\"restarts\":0,\"maxIterations\":501}", 400, "Restarts" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":3,\"tolerance\":-0.5}", 400, "tolerance" },
        { "{\"datasetId\":\"$gmm\",\"clusters\":3,\"tolerance\":\"NaN\"}", 400, "tolerance" },
        { "{\"datasetId\":\"00000000-0000-0000-0000-000000000001\",\"clusters\":3}", 404, "No dataset" },
    };

    public static TheoryData<string, int, int?, int?, StatusCode> BadGrpcStarts => new()
    {
        { "", 3, null, null, StatusCode.InvalidArgument },
        { "not-a-guid", 3, null, null, StatusCode.InvalidArgument },
        { "$gmm", 0, null, null, StatusCode.InvalidArgument },
        { "$gmm", -1, null, null, StatusCode.InvalidArgument },
        { "$tiny", 31, null, null, StatusCode.InvalidArgument },
        { "$gmm", 3, 0, null, StatusCode.InvalidArgument },
        { "$gmm", 3, null, 0, StatusCode.InvalidArgument },
        { "$gmm", 3, null, -5, StatusCode.InvalidArgument },
        { "$gmm", 51, null, null, StatusCode.ResourceExhausted },
        { "$gmm", 3, 21, null, StatusCode.ResourceExhausted },
        { "$gmm", 3, null, 501, StatusCode.ResourceExhausted },
        { "00000000-0000-0000-0000-000000000001", 3, null, null, StatusCode.NotFound },
    };

    [Theory]
    [MemberData(nameof(BadStarts))]
    public async Task StartRest_BadRequest_ClearProblemAndNothingStarted(string body, int status, string mentions)
    {
        var before = await Service.Rest.CountJobsAsync();

        using var response = await Service.Rest.PostJsonTextAsync("/api/kmeans/jobs", fixture.Resolve(body));

        Assert.Contains(mentions, await RestCalls.ProblemAsync(response, status), StringComparison.OrdinalIgnoreCase);
        Assert.Equal(before, await Service.Rest.CountJobsAsync());
    }

    [Fact]
    public async Task StartRest_OverRequestLimit_413()
    {
        var padding = new string('x', 300_000);
        using var response = await Service.Rest.PostJsonTextAsync("/api/kmeans/jobs", fixture.Resolve($"{{\"datasetId\":\"$gmm\",\"clusters\":3,\"note\":\"{padding}\"}}"));

        var detail = await RestCalls.ProblemAsync(response, 413);

        Assert.Contains("MaxRequestBytes", detail, StringComparison.Ordinal);
        Assert.Contains("200,000", detail, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("POST", "text/plain", 415)]
    [InlineData("GET", null, 405)]
    public async Task StartRest_WrongContentTypeOrMethod_Problem(string method, string? contentType, int status)
    {
        using var request = new HttpRequestMessage(new HttpMethod(method), "/api/kmeans/jobs");
        if (contentType is not null)
        {
            request.Content = new StringContent(fixture.Resolve("{\"datasetId\":\"$gmm\",\"clusters\":3}"), System.Text.Encoding.UTF8, contentType);
        }

        using var response = await Service.Rest.SendAsync(request, TestContext.Current.CancellationToken);

        await RestCalls.ProblemAsync(response, status, requireDetail: false);
    }

    [Theory]
    [MemberData(nameof(BadGrpcStarts))]
    public async Task StartGrpc_BadRequest_StatusWithMessage(string dataset, int clusters, int? restarts, int? maxIterations, StatusCode expected)
    {
        var request = new StartKMeansRequest { DatasetId = fixture.Resolve(dataset), Clusters = clusters };
        if (restarts is { } r)
        {
            request.Restarts = r;
        }

        if (maxIterations is { } m)
        {
            request.MaxIterations = m;
        }

        await GrpcCalls.FailsWithAsync(expected, async () => await new KMeansClient(Service.Grpc).StartAsync(request, GrpcCalls.Options));
    }

    [Theory]
    [InlineData(21, null, "21 restarts exceed this service's limit of 20 (Salsa:Limits:MaxRestarts)")]
    [InlineData(null, 501, "501 iterations (maxIterations) exceed this service's limit of 500 (Salsa:Limits:MaxIterations)")]
    public async Task StartGrpc_OverConfiguredWorkLimit_ResourceExhaustedNamingTheKeyThenServesAtTheLimits(int? restarts, int? maxIterations, string mentions)
    {
        var client = new KMeansClient(Service.Grpc);
        var request = new StartKMeansRequest { DatasetId = fixture.Gmm.ToString(), Clusters = 3 };
        if (restarts is { } r)
        {
            request.Restarts = r;
        }

        if (maxIterations is { } m)
        {
            request.MaxIterations = m;
        }

        var before = await Service.Rest.CountJobsAsync();
        var message = await GrpcCalls.FailsWithAsync(StatusCode.ResourceExhausted, async () => await client.StartAsync(request, GrpcCalls.Options));

        Assert.Contains(mentions, message, StringComparison.Ordinal);
        Assert.Equal(before, await Service.Rest.CountJobsAsync());
        var job = await client.StartAsync(new() { DatasetId = fixture.Gmm.ToString(), Clusters = 3, Restarts = 20, MaxIterations = 500, Seed = 2 }, GrpcCalls.Options);
        Assert.Equal(Contracts.Common.JobState.Succeeded, (await new JobsClient(Service.Grpc).WatchToEndAsync(job.JobId, options: GrpcCalls.Options)).State);
    }

    [Fact]
    public async Task StartGrpc_TruncatedMessage_InvalidArgument()
    {
        var whole = new StartKMeansRequest { DatasetId = fixture.Gmm.ToString(), Clusters = 3, Restarts = 2 }.ToByteArray();

        var (status, message) = await RawGrpc.CallAsync(Service.Ports.GrpcAddress, StartPath, whole[..(whole.Length / 2)]);

        Assert.Equal((int)StatusCode.InvalidArgument, status);
        Assert.NotEmpty(message);
    }

    [Fact]
    public async Task StartGrpc_OversizeMessage_ResourceExhausted()
    {
        var request = new StartKMeansRequest { DatasetId = new string('a', 150_000), Clusters = 3 };

        var message = await GrpcCalls.FailsWithAsync(StatusCode.ResourceExhausted, async () => await new KMeansClient(Service.Grpc).StartAsync(request, GrpcCalls.Options));

        // grpc-dotnet's own words; the limit is Salsa:Limits:MaxGrpcMessageBytes (100,000 here).
        Assert.Contains("exceeds the maximum configured message size", message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task GetResult_UnknownOrMalformedJob_NotFoundOrInvalid()
    {
        using var unknown = await Service.Rest.GetAsync("/api/kmeans/jobs/00000000-0000-0000-0000-000000000001/result", TestContext.Current.CancellationToken);
        Assert.Contains("00000000-0000-0000-0000-000000000001", await RestCalls.ProblemAsync(unknown, 404), StringComparison.Ordinal);
        using var malformed = await Service.Rest.GetAsync("/api/kmeans/jobs/nope/result", TestContext.Current.CancellationToken);
        Assert.Contains("nope", await RestCalls.ProblemAsync(malformed, 400), StringComparison.Ordinal);

        var client = new KMeansClient(Service.Grpc);
        await GrpcCalls.FailsWithAsync(StatusCode.NotFound, async () => await client.GetResultAsync(new() { JobId = Guid.NewGuid().ToString() }, GrpcCalls.Options));
        await GrpcCalls.FailsWithAsync(StatusCode.InvalidArgument, async () => await client.GetResultAsync(new() { JobId = "nope" }, GrpcCalls.Options));
    }

    [Fact]
    public async Task AfterBadInput_ServiceKeepsServing_BothFaces()
    {
        foreach (var body in new[]
                 {
                     "{", "{\"datasetId\":\"$gmm\",\"clusters\":0}", "{\"datasetId\":\"$tiny\",\"clusters\":31}", "{\"datasetId\":\"$gmm\",\"clusters\":51}",
                     "{\"datasetId\":\"$gmm\",\"clusters\":3,\"restarts\":1000000}", "{\"datasetId\":\"$gmm\",\"clusters\":3,\"maxIterations\":1000000}",
                 })
        {
            using var response = await Service.Rest.PostJsonTextAsync("/api/kmeans/jobs", fixture.Resolve(body));
            Assert.InRange((int)response.StatusCode, 400, 499);
        }

        var job = await new KMeansClient(Service.Grpc).StartAsync(new() { DatasetId = fixture.Gmm.ToString(), Clusters = 5, Seed = 3 }, GrpcCalls.Options);
        var final = await new JobsClient(Service.Grpc).WatchToEndAsync(job.JobId, options: GrpcCalls.Options);
        Assert.Equal(Contracts.Common.JobState.Succeeded, final.State);
        var rest = await Service.Rest.StartJobAsync("/api/kmeans/jobs", new { datasetId = fixture.Tiny, clusters = 30 });
        Assert.Equal("succeeded", (await Service.Rest.WaitAsync(rest.JobId)).State);
        var atLimits = await Service.Rest.StartJobAsync("/api/kmeans/jobs", new { datasetId = fixture.Gmm, clusters = 3, restarts = 20, maxIterations = 500 });
        Assert.Equal("succeeded", (await Service.Rest.WaitAsync(atLimits.JobId)).State);
    }
}
