using System.Net.Http.Json;
using System.Text;
using Google.Protobuf;
using Grpc.Core;
using Salsa.Annealing;
using Salsa.Contracts.Annealing;
using Salsa.Contracts.Clients;
using Salsa.Services.Tests.Support;

namespace Salsa.Services.Tests.Annealing;

/// <summary>The annealing service with small limits, fed bad input on every endpoint.</summary>
public sealed class BadInputServiceFixture : BadInputFixture<AnnealingService>;

public sealed class AnnealingBadInputTests(BadInputServiceFixture fixture) : IClassFixture<BadInputServiceFixture>
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private ServiceUnderTest<AnnealingService> Service => fixture.Service;

    public static TheoryData<string, int, string> BadStarts => new()
    {
        { "{\"datasetId\":", 400, "JSON" },
        { "[1,2]", 400, "JSON" },
        { "{\"datasetId\":\"not-a-guid\",\"maxClusters\":3}", 400, "Guid" },
        { "{\"datasetId\":\"$gmm\"}", 400, "maxClusters" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":0}", 400, "maxClusters must be at least 1; it is 0." },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":-4}", 400, "maxClusters must be at least 1; it is -4." },
        { "{\"datasetId\":\"$tiny\",\"maxClusters\":40}", 400, "maxClusters (Kmax) must be between 1" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":51}", 413, "MaxClusters" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"coolingFactor\":1.5}", 400, "coolingFactor must lie strictly between 0 and 1" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"coolingFactor\":\"NaN\"}", 400, "coolingFactor" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"startTemperature\":-1}", 400, "startTemperature must be positive" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"coolingFactor\":1}", 400, "strictly between 0 and 1" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"coolingFactor\":0}", 400, "strictly between 0 and 1" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"minTemperature\":0}", 400, "minTemperature must be positive" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"maxIterationsPerTemperature\":0}", 400, "maxIterationsPerTemperature must be at least 1; it is 0" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"splitMergeAttempts\":-1}", 400, "splitMergeAttempts must not be negative" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"maxIterationsPerTemperature\":-1}", 400, "maxIterationsPerTemperature must be at least 1; it is -1." },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"tolerance\":0}", 400, "tolerance must be positive; it is 0." },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"startTemperature\":1,\"minTemperature\":2}", 400, "minTemperature must not be above startTemperature (1); it is 2" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"startTemperature\":1e200,\"minTemperature\":1e-200}", 413, "17,958 temperatures (coolingFactor 0.95 from 1E+200 down to 1E-200)" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"colingFactor\":0.5}", 400, "colingFactor" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"padding\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}", 400, "padding" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"maxIterationsPerTemperature\":501}", 413, "501 iterations (maxIterationsPerTemperature) exceed this service's limit of 500 (Salsa:Limits:MaxIterations)" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"splitMergeAttempts\":41}", 413, "41 split–merge attempts (splitMergeAttempts) exceed this service's limit of 40 (Salsa:Limits:MaxSplitMergeAttempts)" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"coolingFactor\":0.995}", 413, "2,758 temperatures (coolingFactor 0.995 from the start temperature down to 10⁻⁶ of it) exceed this service's limit of 2,000 (Salsa:Limits:MaxTemperatures)" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"coolingFactor\":0.9,\"startTemperature\":1000,\"minTemperature\":1e-300}", 413, "temperatures (coolingFactor 0.9 from 1000 down to 1E-300)" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"coolingFactor\":0.9999999999999999}", 413, "Salsa:Limits:MaxTemperatures" },
        { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"coolingFactor\":1.5,\"maxIterationsPerTemperature\":501}", 400, "coolingFactor must lie strictly between 0 and 1" },
        { "{\"datasetId\":\"00000000-0000-0000-0000-000000000001\",\"maxClusters\":3}", 404, "No dataset" },
    };

    public static TheoryData<string, string, int, string> BadUploads => new()
    {
        { "name=x&kind=dense&dimension=2", "x,y\n1,2\nNaN,3\n", 400, "finite" },
        { "name=x&kind=dense&dimension=2", "NaN,3\n1,2\n", 400, "finite" },
        { "name=x&kind=dense&dimension=2", "x,y\n1,2\n1,2,3\n", 400, "" },
        { "name=x&kind=dense&dimension=2", "x,y\n1,Infinity\n", 400, "finite" },
        { "name=x&kind=dense&dimension=2", "x,y\n", 400, "no points" },
        { "name=x&kind=dense&dimension=0", "x\n1\n", 400, "dimension" },
        { "name=x&kind=cubes&dimension=2", "x,y\n1,2\n", 400, "kind" },
        { "name=x&kind=binary&bits=8", "fp\nzz\n", 400, "hex" },
        { "name=x&kind=dense&dimension=2&weights=true", "x,y,w\n1,2,-1\n", 400, "weight" },
    };

    [Theory]
    [MemberData(nameof(BadStarts))]
    public async Task StartRest_BadRequest_ClearProblemAndNothingStarted(string body, int status, string mentions)
    {
        var before = await JobCountAsync();
        using var content = new StringContent(fixture.Resolve(body), Encoding.UTF8, "application/json");
        using var response = await Service.Rest.PostAsync("/api/annealing/jobs", content, Token);

        var detail = await RestCalls.ProblemAsync(response, status);
        Assert.Contains(mentions, detail, StringComparison.OrdinalIgnoreCase);
        Assert.Equal(before, await JobCountAsync());
    }

    [Theory]
    [InlineData("name=h&kind=binary&bits=8", "fingerprint,weight\n0f,1\nf0,2\n", 2)]
    [InlineData("name=h&kind=binary&bits=8", "0f,1\nf0,2\n", 2)]
    [InlineData("name=h&kind=dense&dimension=2", "x,y,weight\n1,2,1\n3,4,2\n5,6,3\n", 3)]
    [InlineData("name=h&kind=dense&dimension=2", "-1,2,1\n.5,4,2\n", 2)]
    public async Task UploadCsv_HeaderLineOptional_EveryDataRowKept(string query, string csv, int count)
    {
        var dataset = await Service.Rest.UploadCsvAsync(query + "&weights=true", csv);
        Assert.Equal(count, dataset.Count);
    }

    [Theory]
    [MemberData(nameof(BadUploads))]
    public async Task UploadCsv_BadData_ClearProblemAndNothingStored(string query, string csv, int status, string mentions)
    {
        var before = await DatasetCountAsync();
        using var content = new StringContent(csv, Encoding.UTF8, "text/csv");
        using var response = await Service.Rest.PostAsync($"/api/datasets/csv?{query}", content, Token);

        var detail = await RestCalls.ProblemAsync(response, status);
        Assert.Contains(mentions, detail, StringComparison.OrdinalIgnoreCase);
        Assert.Equal(before, await DatasetCountAsync());
    }

    [Fact]
    public async Task Upload_OverRequestLimit_413()
    {
        var csv = new StringBuilder("x,y\n");
        while (csv.Length < 300_000)
        {
            csv.Append("1.2345678,2.3456789\n");
        }

        using var content = new StringContent(csv.ToString(), Encoding.UTF8, "text/csv");
        using var response = await Service.Rest.PostAsync("/api/datasets/csv?name=big&kind=dense&dimension=2", content, Token);
        await RestCalls.ProblemAsync(response, 413);
    }

    [Fact]
    public async Task Upload_OverPointLimit_413()
    {
        var values = new double[2 * 6000];
        var rpc = await Assert.ThrowsAsync<RpcException>(() =>
            new DatasetsClient(Service.Grpc).UploadDenseAsync("too-many", 2, values, options: new CallOptions(cancellationToken: Token)));
        Assert.Equal(StatusCode.ResourceExhausted, rpc.StatusCode);
        Assert.Contains("MaxPoints", rpc.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task JsonUpload_DimensionMismatch_400()
    {
        using var response = await Service.Rest.PostAsJsonAsync("/api/datasets", new { name = "odd", kind = "dense", dimension = 3, values = new[] { 1.0, 2, 3, 4 } }, Token);
        Assert.Contains("3", await RestCalls.ProblemAsync(response, 400), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/api/jobs/not-a-guid", 400)]
    [InlineData("/api/jobs/00000000-0000-0000-0000-000000000001", 404)]
    [InlineData("/api/jobs/00000000-0000-0000-0000-000000000001/events", 404)]
    [InlineData("/api/jobs/00000000-0000-0000-0000-000000000001/result", 404)]
    [InlineData("/api/jobs/00000000-0000-0000-0000-000000000001/artifacts/assignments", 404)]
    [InlineData("/api/annealing/jobs/00000000-0000-0000-0000-000000000001/result", 404)]
    [InlineData("/api/datasets/00000000-0000-0000-0000-000000000001", 404)]
    [InlineData("/api/datasets/zzz", 400)]
    public async Task Get_UnknownOrMalformedId_Problem(string path, int status)
    {
        using var response = await Service.Rest.GetAsync(path, Token);
        await RestCalls.ProblemAsync(response, status);
    }

    [Fact]
    public async Task GrpcStart_TruncatedMessage_InvalidArgument()
    {
        var whole = new StartAnnealingRequest { DatasetId = fixture.Gmm.ToString(), MaxClusters = 3 }.ToByteArray();
        var (status, message) = await RawGrpc.CallAsync(Service.Ports.GrpcAddress, "/salsa.annealing.v1.Annealing/Start", whole[..(whole.Length / 2)]);
        Assert.Equal((int)StatusCode.InvalidArgument, status);
        Assert.NotEmpty(message);
    }

    [Theory]
    [InlineData("", 3, StatusCode.InvalidArgument)]
    [InlineData("$gmm", 0, StatusCode.InvalidArgument)]
    [InlineData("$tiny", 40, StatusCode.InvalidArgument)]
    [InlineData("$gmm", 51, StatusCode.ResourceExhausted)]
    [InlineData("00000000-0000-0000-0000-000000000001", 3, StatusCode.NotFound)]
    public async Task GrpcStart_BadRequest_Status(string dataset, int clusters, StatusCode expected)
    {
        var request = new StartAnnealingRequest { DatasetId = fixture.Resolve(dataset), MaxClusters = clusters };
        var rpc = await Assert.ThrowsAsync<RpcException>(async () => await new AnnealingClient(Service.Grpc).StartAsync(request, new CallOptions(cancellationToken: Token)));
        Assert.Equal(expected, rpc.StatusCode);
        Assert.NotEmpty(rpc.Status.Detail);
    }

    [Theory]
    [InlineData(501, null, null, null, null, "501 iterations (maxIterationsPerTemperature) exceed this service's limit of 500 (Salsa:Limits:MaxIterations)")]
    [InlineData(null, 41, null, null, null, "(Salsa:Limits:MaxSplitMergeAttempts)")]
    [InlineData(null, null, 0.995, null, null, "2,758 temperatures (coolingFactor 0.995 from the start temperature down to 10⁻⁶ of it) exceed this service's limit of 2,000 (Salsa:Limits:MaxTemperatures)")]
    [InlineData(null, null, 0.9, 1.0, 1e-300, "6,558 temperatures (coolingFactor 0.9 from 1 down to 1E-300)")]
    public async Task GrpcStart_OverConfiguredWorkLimit_ResourceExhaustedNamingTheKeyThenServesAtTheLimits(
        int? iterationsPerTemperature, int? splitMergeAttempts, double? coolingFactor, double? startTemperature, double? minTemperature, string mentions)
    {
        var client = new AnnealingClient(Service.Grpc);
        var before = await JobCountAsync();
        var over = new StartAnnealingRequest { DatasetId = fixture.Gmm.ToString(), MaxClusters = 3 };
        if (iterationsPerTemperature is { } iterations)
        {
            over.MaxIterationsPerTemperature = iterations;
        }

        if (splitMergeAttempts is { } attempts)
        {
            over.SplitMergeAttempts = attempts;
        }

        if (coolingFactor is { } cooling)
        {
            over.CoolingFactor = cooling;
        }

        if ((startTemperature, minTemperature) is ({ } start, { } min))
        {
            (over.StartTemperature, over.MinTemperature) = (start, min);
        }

        var message = await GrpcCalls.FailsWithAsync(StatusCode.ResourceExhausted, async () => await client.StartAsync(over, new CallOptions(cancellationToken: Token)));

        Assert.Contains(mentions, message, StringComparison.Ordinal);
        Assert.Equal(before, await JobCountAsync());
        var atLimits = new StartAnnealingRequest { DatasetId = fixture.Gmm.ToString(), MaxClusters = 3, MaxIterationsPerTemperature = 500, SplitMergeAttempts = 40 };
        var job = await client.StartAsync(atLimits, new CallOptions(cancellationToken: Token));
        Assert.Equal(Contracts.Common.JobState.Succeeded, (await new JobsClient(Service.Grpc).WatchToEndAsync(job.JobId, options: new CallOptions(cancellationToken: Token))).State);
    }

    [Fact]
    public async Task StartRest_OverConfiguredWorkLimits_413ThenServesWithinThem()
    {
        foreach (var body in new[] { "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"coolingFactor\":0.99999}", "{\"datasetId\":\"$gmm\",\"maxClusters\":3,\"maxIterationsPerTemperature\":1000000}" })
        {
            using var content = new StringContent(fixture.Resolve(body), Encoding.UTF8, "application/json");
            using var response = await Service.Rest.PostAsync("/api/annealing/jobs", content, Token);
            Assert.Contains("Salsa:Limits:", await RestCalls.ProblemAsync(response, 413), StringComparison.Ordinal);
        }

        // 1,968 temperatures: within the 2,000 configured.
        var job = await Service.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = fixture.Gmm, maxClusters = 2, coolingFactor = 0.993, maxIterationsPerTemperature = 500 });
        Assert.Equal("succeeded", (await Service.Rest.WaitAsync(job.JobId)).State);
    }

    [Fact]
    public async Task GrpcUpload_NaNOrChunkBeforeHeader_InvalidArgumentAndNothingStored()
    {
        var before = await DatasetCountAsync();
        var nan = await Assert.ThrowsAsync<RpcException>(() =>
            new DatasetsClient(Service.Grpc).UploadDenseAsync("nan", 2, [1, double.NaN], options: new CallOptions(cancellationToken: Token)));
        Assert.Equal(StatusCode.InvalidArgument, nan.StatusCode);

        using var call = new DatasetsClient(Service.Grpc).Upload(new CallOptions(cancellationToken: Token));
        await call.RequestStream.WriteAsync(new Contracts.Datasets.UploadRequest { Chunk = new() { Values = { 1, 2 } } }, Token);
        await call.RequestStream.CompleteAsync();
        var early = await Assert.ThrowsAsync<RpcException>(() => call.ResponseAsync);
        Assert.Equal(StatusCode.InvalidArgument, early.StatusCode);
        Assert.Equal(before, await DatasetCountAsync());
    }

    [Fact]
    public async Task GrpcUpload_OversizeMessage_ResourceExhaustedAndServiceKeepsServing()
    {
        using var call = new DatasetsClient(Service.Grpc).Upload(new CallOptions(cancellationToken: Token));
        await call.RequestStream.WriteAsync(new Contracts.Datasets.UploadRequest { Header = new() { Name = "big", Kind = Contracts.Datasets.DatasetKind.Dense, Dimension = 1 } }, Token);
        try
        {
            await call.RequestStream.WriteAsync(new Contracts.Datasets.UploadRequest { Chunk = new() { Values = { new double[20_000] } } }, Token);
            await call.RequestStream.CompleteAsync();
        }
        catch (RpcException)
        {
            // The service may end the call while the client is still sending the oversize message; the
            // client's write then fails (often as CANCELLED, one in seven in a 200-call trial) and, as gRPC
            // prescribes for client streams, the call's own status is read from the response.
        }
        var rpc = await Assert.ThrowsAsync<RpcException>(() => call.ResponseAsync);
        Assert.Equal(StatusCode.ResourceExhausted, rpc.StatusCode);

        var job = await new AnnealingClient(Service.Grpc).StartAsync(new() { DatasetId = fixture.Gmm.ToString(), MaxClusters = 2 }, new CallOptions(cancellationToken: Token));
        var final = await new JobsClient(Service.Grpc).WatchToEndAsync(job.JobId, options: new CallOptions(cancellationToken: Token));
        Assert.Equal(Contracts.Common.JobState.Succeeded, final.State);
    }

    private Task<int> JobCountAsync() => Service.Rest.CountJobsAsync();

    private Task<int> DatasetCountAsync() => Service.Rest.CountDatasetsAsync();
}
