using System.Text;
using Google.Protobuf;
using Grpc.Core;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Mds;
using Salsa.Hosting.Jobs;
using Salsa.Mds;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Mds;

/// <summary>An MDS service that embeds at most 40 items in at most 1,000 iterations, with a 12-point and a 60-point dataset.</summary>
public sealed class MdsBadInputFixture : IAsyncLifetime
{
    private readonly TemporaryDirectory _directory = new();

    public ServiceUnderTest<MdsService> Service { get; private set; } = null!;

    public Guid Planar { get; private set; }

    /// <summary>More points than the service embeds at once.</summary>
    public Guid Large { get; private set; }

    public string Resolve(string text) => text
        .Replace("$planar", Planar.ToString(), StringComparison.Ordinal)
        .Replace("$large", Large.ToString(), StringComparison.Ordinal);

    public async ValueTask InitializeAsync()
    {
        Service = await ServiceUnderTest.StartAsync<MdsService>(TestStore.Sqlite(_directory), new Dictionary<string, string?>
        {
            ["Salsa:Limits:MaxEmbeddingItems"] = "40",
            ["Salsa:Limits:MaxIterations"] = "1000",
        });
        Planar = (await Service.Rest.UploadCsvAsync("name=planar&kind=dense&dimension=3", PlanarPoints.Csv(PlanarPoints.InThreeDimensions(), 3))).DatasetId;
        var large = string.Join('\n', Fixtures.GmmCsv().Split('\n').Take(61)) + "\n";
        Large = (await Service.Rest.UploadCsvAsync("name=large&kind=dense&dimension=2&weights=true", large)).DatasetId;
    }

    public async ValueTask DisposeAsync()
    {
        await Service.DisposeAsync();
        _directory.Dispose();
    }
}

public sealed class MdsBadInputTests(MdsBadInputFixture fixture) : IClassFixture<MdsBadInputFixture>
{
    private const string Unknown = "00000000-0000-0000-0000-000000000001";

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static CallOptions Call => new(cancellationToken: Token);

    private ServiceUnderTest<MdsService> Service => fixture.Service;

    public static TheoryData<string, int, string> BadStarts => new()
    {
        { "{\"datasetId\":", 400, "JSON" },
        { "[2]", 400, "JSON" },
        { "{\"datasetId\":\"$planar\",\"dimensions\":1}", 400, "dimensions must be between 2 and 3; it is 1." },
        { "{\"datasetId\":\"$planar\",\"dimensions\":4}", 400, "dimensions must be between 2 and 3; it is 4." },
        { "{\"datasetId\":\"$planar\",\"dimensions\":2,\"items\":[0,1,12]}", 400, "items[2] is 12, but dataset" },
        { "{\"datasetId\":\"$planar\",\"dimensions\":2,\"items\":[0,-1,2]}", 400, "items[1] must not be negative; it is -1." },
        { "{\"datasetId\":\"$planar\",\"dimensions\":2,\"items\":[3,1,3,4]}", 400, "items[2] repeats point 3" },
        { "{\"datasetId\":\"$planar\",\"dimensions\":3,\"items\":[0,1,2]}", 400, "needs at least 4 items" },
        { "{\"datasetId\":\"$planar\",\"dimensions\":2,\"itemWeights\":[1,2,3]}", 400, "3 itemWeights for 12 items" },
        { "{\"datasetId\":\"$planar\",\"dimensions\":2,\"items\":[0,1,2,3],\"itemWeights\":[1,1,-1,1]}", 400, "itemWeights[2] must not be negative; it is -1." },
        { "{\"datasetId\":\"$planar\",\"dimensions\":2,\"items\":[0,1,2,3],\"itemWeights\":[0,0,0,1]}", 400, "two itemWeights must be positive" },
        { "{\"datasetId\":\"$planar\",\"dimensions\":2,\"maxIterations\":0}", 400, "maxIterations" },
        { "{\"datasetId\":\"$planar\",\"dimensions\":2,\"tolerance\":-1}", 400, "tolerance" },
        { "{\"datasetId\":\"$planar\",\"dimensions\":2,\"maxIterations\":1001}", 413, "1,001 iterations (maxIterations) exceed this service's limit of 1,000 (Salsa:Limits:MaxIterations)" },
        { "{\"datasetId\":\"$planar\",\"dimensions\":2,\"maxIterations\":2147483647}", 413, "Salsa:Limits:MaxIterations" },
        { "{\"datasetId\":\"$large\",\"dimensions\":2}", 413, "MaxEmbeddingItems" },
        { "{\"datasetId\":\"$large\",\"dimensions\":2,\"items\":[" + string.Join(',', Enumerable.Range(0, 41)) + "]}", 413, "41 items to embed exceed this service's limit of 40 (Salsa:Limits:MaxEmbeddingItems)" },
        { "{\"datasetId\":\"not-a-guid\",\"dimensions\":2}", 400, "Guid" },
        { "{\"datasetId\":\"" + Unknown + "\",\"dimensions\":2}", 404, "No dataset" },
    };

    [Theory]
    [MemberData(nameof(BadStarts))]
    public async Task StartRest_BadRequest_ClearProblemAndNothingStarted(string body, int status, string mentions)
    {
        var before = await JobCountAsync();
        using var content = new StringContent(fixture.Resolve(body), Encoding.UTF8, "application/json");
        using var response = await Service.Rest.PostAsync("/api/mds/jobs", content, Token);

        var detail = await RestCalls.ProblemAsync(response, status);
        Assert.Contains(mentions, detail, StringComparison.OrdinalIgnoreCase);
        Assert.Equal(before, await JobCountAsync());
    }

    [Theory]
    [InlineData("$planar", 4, new int[0], StatusCode.InvalidArgument, "dimensions must be between 2 and 3")]
    [InlineData("$planar", 2, new[] { 0, 1, 99 }, StatusCode.InvalidArgument, "items[2] is 99")]
    [InlineData("$planar", 2, new[] { 5, 5, 6 }, StatusCode.InvalidArgument, "repeats point 5")]
    [InlineData("$large", 2, new int[0], StatusCode.ResourceExhausted, "MaxEmbeddingItems")]
    [InlineData("", 2, new int[0], StatusCode.InvalidArgument, "datasetId is required")]
    [InlineData(Unknown, 2, new int[0], StatusCode.NotFound, "No dataset")]
    public async Task StartGrpc_BadRequest_Status(string dataset, int dimensions, int[] items, StatusCode expected, string mentions)
    {
        var request = new StartEmbeddingRequest { DatasetId = fixture.Resolve(dataset), Dimensions = dimensions };
        request.Items.Add(items);

        var rpc = await Assert.ThrowsAsync<RpcException>(async () => await new MdsClient(Service.Grpc).StartAsync(request, Call));

        Assert.Equal(expected, rpc.StatusCode);
        Assert.Contains(mentions, rpc.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task StartGrpc_OverConfiguredIterations_ResourceExhaustedNamingTheKeyThenServesAtTheLimit()
    {
        var client = new MdsClient(Service.Grpc);
        var before = await JobCountAsync();

        var rpc = await Assert.ThrowsAsync<RpcException>(async () =>
            await client.StartAsync(new StartEmbeddingRequest { DatasetId = fixture.Planar.ToString(), Dimensions = 2, MaxIterations = 1001 }, Call));

        Assert.Equal(StatusCode.ResourceExhausted, rpc.StatusCode);
        Assert.Contains("(Salsa:Limits:MaxIterations)", rpc.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(before, await JobCountAsync());
        var job = await client.StartAsync(new StartEmbeddingRequest { DatasetId = fixture.Planar.ToString(), Dimensions = 2, MaxIterations = 1000 }, Call);
        Assert.Equal(JobState.Succeeded, (await new JobsClient(Service.Grpc).WatchToEndAsync(job.JobId, options: Call)).State);
    }

    [Fact]
    public async Task StartGrpc_WeightsLengthMismatch_InvalidArgument()
    {
        var request = new StartEmbeddingRequest { DatasetId = fixture.Planar.ToString(), Dimensions = 2, ItemWeights = { 1, 2 } };

        var rpc = await Assert.ThrowsAsync<RpcException>(async () => await new MdsClient(Service.Grpc).StartAsync(request, Call));

        Assert.Equal(StatusCode.InvalidArgument, rpc.StatusCode);
        Assert.Contains("2 itemWeights for 12 items", rpc.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task StartGrpc_TruncatedMessage_InvalidArgumentAndServiceKeepsServing()
    {
        var whole = new StartEmbeddingRequest { DatasetId = fixture.Planar.ToString(), Dimensions = 2, Items = { 0, 1, 2, 3 } }.ToByteArray();

        var (status, message) = await RawGrpc.CallAsync(Service.Ports.GrpcAddress, "/salsa.mds.v1.Mds/Start", whole[..(whole.Length / 2)]);

        Assert.Equal((int)StatusCode.InvalidArgument, status);
        Assert.NotEmpty(message);
        var job = await new MdsClient(Service.Grpc).StartAsync(new StartEmbeddingRequest { DatasetId = fixture.Planar.ToString(), Dimensions = 2 }, Call);
        Assert.Equal(JobState.Succeeded, (await new JobsClient(Service.Grpc).WatchToEndAsync(job.JobId, options: Call)).State);
    }

    [Theory]
    [InlineData("not-a-guid", StatusCode.InvalidArgument)]
    [InlineData(Unknown, StatusCode.NotFound)]
    public async Task GetResultGrpc_BadJobId_Status(string jobId, StatusCode expected)
    {
        var rpc = await Assert.ThrowsAsync<RpcException>(async () => await new MdsClient(Service.Grpc).GetResultAsync(new JobRef { JobId = jobId }, Call));

        Assert.Equal(expected, rpc.StatusCode);
    }

    [Theory]
    [InlineData("/api/mds/jobs/not-a-guid/result", 400)]
    [InlineData("/api/mds/jobs/" + Unknown + "/result", 404)]
    [InlineData("/api/jobs/" + Unknown + "/artifacts/coordinates", 404)]
    public async Task GetRest_UnknownOrMalformedId_Problem(string path, int status)
    {
        using var response = await Service.Rest.GetAsync(path, Token);

        await RestCalls.ProblemAsync(response, status);
    }

    private async Task<int> JobCountAsync() => (await Service.GetJsonAsync<List<JobView>>("/api/jobs?limit=1000")).Count;
}
