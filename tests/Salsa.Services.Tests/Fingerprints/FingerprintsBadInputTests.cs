using System.Net.Http.Json;
using System.Text;
using Google.Protobuf;
using Grpc.Core;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Fingerprints;
using Salsa.DataFiles;
using Salsa.Hosting.Jobs;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Fingerprints;

/// <summary>The compound services with a small search limit, a dense and an untyped binary dataset, and finished jobs to misuse.</summary>
public sealed class FingerprintsBadInputFixture : IAsyncLifetime
{
    private readonly TemporaryDirectory _directory = new();

    public CompoundServices Services { get; private set; } = null!;

    public Guid Dense { get; private set; }

    /// <summary>Three 8-bit prints uploaded without a fingerprint type.</summary>
    public Guid Untyped { get; private set; }

    /// <summary>ECFP4 fingerprints another RDKit release made (its metadata says 2022.09.3).</summary>
    public Guid OtherRelease { get; private set; }

    /// <summary>A Butina job of the MACCS dataset.</summary>
    public Guid MaccsButina { get; private set; }

    /// <summary>A binary-annealing job of the ECFP4 dataset.</summary>
    public Guid Annealing { get; private set; }

    public static string EcfpHex => FixtureCompounds.Hex(FingerprintType.Ecfp4.Name, FixtureCompounds.Words(FingerprintType.Ecfp4.Name, 7));

    public static string MaccsHex => FixtureCompounds.Hex(FingerprintType.Maccs.Name, FixtureCompounds.Words(FingerprintType.Maccs.Name, 7));

    /// <summary>Replaces the <c>$name</c> placeholders of a request with this fixture's ids and queries.</summary>
    public string Resolve(string text) => new StringBuilder(text)
        .Replace("$ecfpHex", EcfpHex)
        .Replace("$maccsHex", MaccsHex)
        .Replace("$ecfp", Services.Ecfp4.ToString())
        .Replace("$maccsButina", MaccsButina.ToString())
        .Replace("$maccs", Services.Maccs.ToString())
        .Replace("$dense", Dense.ToString())
        .Replace("$untyped", Untyped.ToString())
        .Replace("$otherRelease", OtherRelease.ToString())
        .Replace("$annealing", Annealing.ToString())
        .ToString();

    public async ValueTask InitializeAsync()
    {
        Services = await CompoundServices.StartAsync(TestStore.Sqlite(_directory), new Dictionary<string, string?> { ["Salsa:Fingerprints:MaxSearchK"] = "50" });
        Dense = (await Services.Rest.UploadCsvAsync("name=dense&kind=dense&dimension=2", "x,y\n1,2\n3,4\n5,6\n")).DatasetId;
        Untyped = (await Services.Rest.UploadCsvAsync("name=untyped&kind=binary&bits=8", "0f\nf0\nff\n")).DatasetId;
        OtherRelease = (await Services.Rest.PostForAsync<Salsa.Hosting.Datasets.DatasetView>("/api/datasets", new
        {
            name = "other-release", kind = "binary", bits = FingerprintType.Ecfp4.Bits, fingerprintType = FingerprintType.Ecfp4.Name,
            fingerprints = new[] { EcfpHex, EcfpHex }, metadata = new Dictionary<string, string> { ["rdkit_version"] = "2022.09.3" },
        })).DatasetId;
        MaccsButina = await Services.ButinaAsync(Services.Maccs, 0.35);
        var annealing = await Services.Annealing.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = Services.Ecfp4, maxClusters = 2 });
        Assert.Equal("succeeded", (await Services.Annealing.Rest.WaitAsync(annealing.JobId)).State);
        Annealing = annealing.JobId;
    }

    public async ValueTask DisposeAsync()
    {
        await Services.DisposeAsync();
        _directory.Dispose();
    }
}

public sealed class FingerprintsBadInputTests(FingerprintsBadInputFixture fixture) : IClassFixture<FingerprintsBadInputFixture>
{
    private const string Unknown = "00000000-0000-0000-0000-000000000001";

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static CallOptions Call => new(cancellationToken: Token);

    private CompoundServices Services => fixture.Services;

    public static TheoryData<string, int, string> BadSearches => new()
    {
        { "{\"datasetId\":", 400, "JSON" },
        { "{\"datasetId\":\"$ecfp\",\"queryHex\":\"$ecfpHex\",\"fingerprintType\":\"rdkit-ecfp4-1024\"}", 400, "k" },
        { "{\"datasetId\":\"$ecfp\",\"queryHex\":\"$ecfpHex\",\"k\":5}", 400, "names no fingerprint type" },
        { "{\"datasetId\":\"$untyped\",\"queryHex\":\"0f\",\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":1}", 400, "untyped" },
        { "{\"datasetId\":\"$dense\",\"queryHex\":\"0f\",\"k\":1}", 400, "is dense" },
        { "{\"datasetId\":\"" + Unknown + "\",\"queryHex\":\"$ecfpHex\",\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":5}", 404, "No dataset" },
        { "{\"datasetId\":\"$ecfp\",\"butinaJobId\":\"$maccsButina\",\"queryHex\":\"$ecfpHex\",\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":5}", 400, "clustered dataset" },
        { "{\"datasetId\":\"$ecfp\",\"butinaJobId\":\"$annealing\",\"queryHex\":\"$ecfpHex\",\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":5}", 404, "No job" }, // another service's
        { "{\"datasetId\":\"$ecfp\",\"butinaJobId\":\"" + Unknown + "\",\"queryHex\":\"$ecfpHex\",\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":5}", 404, "No job" },
        { "{\"datasetId\":\"$ecfp\",\"queryHex\":\"" + new string('z', 256) + "\",\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":5}", 400, "not hex digits" },
        { "{\"datasetId\":\"$ecfp\",\"queryHex\":\"abcd\",\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":5}", 400, "256 hex digits" },
        { "{\"datasetId\":\"$maccs\",\"queryHex\":\"" + new string('0', 40) + "80\",\"fingerprintType\":\"rdkit-maccs-167\",\"k\":5}", 400, "beyond bit 166" },
        { "{\"datasetId\":\"$ecfp\",\"queryWords\":[1,2],\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":5}", 400, "is 16" },
        { "{\"datasetId\":\"$ecfp\",\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":5}", 400, "no query" },
        { "{\"datasetId\":\"$ecfp\",\"queryHex\":\"$ecfpHex\",\"queryWords\":[1],\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":5}", 400, "more than one query" },
        { "{\"datasetId\":\"$ecfp\",\"queryHex\":\"$ecfpHex\",\"querySmiles\":\"CCO\",\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":5}", 400, "more than one query" },
        { "{\"datasetId\":\"$ecfp\",\"querySmiles\":\"C1CC\",\"k\":5}", 400, "RDKit cannot read the query SMILES 'C1CC': SMILES Parse Error: unclosed ring" },
        { "{\"datasetId\":\"$ecfp\",\"querySmiles\":\"CCO\",\"fingerprintType\":\"rdkit-maccs-167\",\"k\":5}", 400, "a query must use the fingerprint type of the dataset" },
        { "{\"datasetId\":\"$untyped\",\"querySmiles\":\"CCO\",\"k\":1}", 400, "a SMILES query is fingerprinted by RDKit as rdkit-ecfp4-1024 or rdkit-maccs-167 only" },
        { "{\"datasetId\":\"$otherRelease\",\"querySmiles\":\"CCO\",\"k\":1}", 400, "holds fingerprints made by RDKit 2022.09.3; this service fingerprints with RDKit 2026.09.1" },
        { "{\"datasetId\":\"$ecfp\",\"queryHex\":\"$ecfpHex\",\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":0}", 400, "k must be at least 1" },
        { "{\"datasetId\":\"$ecfp\",\"queryHex\":\"$ecfpHex\",\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":-3}", 400, "k must be at least 1" },
        { "{\"datasetId\":\"$ecfp\",\"queryHex\":\"$ecfpHex\",\"fingerprintType\":\"rdkit-ecfp4-1024\",\"k\":51}", 413, "MaxSearchK" },
        { "{\"datasetId\":\"$untyped\",\"queryHex\":\"0f\",\"k\":4}", 400, "only 3 compounds" },
    };

    public static TheoryData<string, string, int, string> BadStarts => new()
    {
        { "butina", "{\"datasetId\":", 400, "JSON" },
        { "butina", "{\"datasetId\":\"$dense\"}", 400, "binary (fingerprint) dataset" },
        { "butina", "{\"datasetId\":\"$ecfp\",\"cutoff\":1.5}", 400, "cutoff must lie strictly between 0 and 1; it is 1.5." },
        { "butina", "{\"datasetId\":\"$ecfp\",\"cutoff\":0}", 400, "cutoff must lie strictly between 0 and 1; it is 0." },
        { "butina", "{\"datasetId\":\"" + Unknown + "\"}", 404, "No dataset" },
        { "annealing", "{\"datasetId\":\"$ecfp\",\"maxClusters\":0}", 400, "maxClusters must be at least 1" },
        { "annealing", "{\"datasetId\":\"$ecfp\",\"maxClusters\":2,\"coolingFactor\":0.99999}", 413, "1,381,546 temperatures (coolingFactor 0.99999 from the start temperature down to 10⁻⁶ of it) exceed this service's limit of 100,000 (Salsa:Limits:MaxTemperatures)" },
        { "annealing", "{\"datasetId\":\"$ecfp\",\"maxClusters\":2,\"maxIterationsPerTemperature\":100001}", 413, "(Salsa:Limits:MaxIterations)" },
        { "annealing", "{\"datasetId\":\"$ecfp\",\"maxClusters\":2,\"splitMergeAttempts\":1001}", 413, "(Salsa:Limits:MaxSplitMergeAttempts)" },
        { "annealing", "{\"datasetId\":\"" + Unknown + "\",\"maxClusters\":2}", 404, "No dataset" },
    };

    [Theory]
    [MemberData(nameof(BadSearches))]
    public async Task SearchRest_BadRequest_ClearProblemAndServiceKeepsServing(string body, int status, string mentions)
    {
        using var content = new StringContent(fixture.Resolve(body), Encoding.UTF8, "application/json");
        using var response = await Services.Rest.PostAsync("/api/fingerprints/search", content, Token);

        Assert.Contains(mentions, await RestCalls.ProblemAsync(response, status), StringComparison.OrdinalIgnoreCase);
        await AssertSearchWorksAsync();
    }

    [Fact]
    public async Task Search_QueryOfAnotherFingerprintType_RefusedNamingBothTypes()
    {
        using var response = await Services.Rest.PostAsJsonAsync("/api/fingerprints/search",
            new { datasetId = Services.Ecfp4, queryHex = FingerprintsBadInputFixture.MaccsHex, fingerprintType = FingerprintType.Maccs.Name, k = 5 }, Token);
        var detail = await RestCalls.ProblemAsync(response, 400);
        Assert.Contains(FingerprintType.Maccs.Name, detail, StringComparison.Ordinal);
        Assert.Contains(FingerprintType.Ecfp4.Name, detail, StringComparison.Ordinal);

        var request = new SearchRequest { DatasetId = Services.Ecfp4.ToString(), FingerprintType = FingerprintType.Maccs.Name, K = 5 };
        request.QueryWords.Add(FixtureCompounds.Words(FingerprintType.Maccs.Name, 7));
        var rpc = await Assert.ThrowsAsync<RpcException>(async () => await new FingerprintsClient(Services.Fingerprints.Grpc).SearchAsync(request, Call));
        Assert.Equal(StatusCode.InvalidArgument, rpc.StatusCode);
        Assert.Contains(FingerprintType.Maccs.Name, rpc.Status.Detail, StringComparison.Ordinal);
        Assert.Contains(FingerprintType.Ecfp4.Name, rpc.Status.Detail, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(BadStarts))]
    public async Task StartRest_BadRequest_ClearProblemAndNothingStarted(string kind, string body, int status, string mentions)
    {
        var before = await JobCountAsync();
        using var content = new StringContent(fixture.Resolve(body), Encoding.UTF8, "application/json");
        // Fingerprints are annealed by the annealing service, clustered by Butina in this one.
        using var response = await (kind == "annealing" ? Services.Annealing.Rest : Services.Rest).PostAsync(kind == "annealing" ? "/api/annealing/jobs" : $"/api/fingerprints/{kind}/jobs", content, Token);

        Assert.Contains(mentions, await RestCalls.ProblemAsync(response, status), StringComparison.OrdinalIgnoreCase);
        Assert.Equal(before, await JobCountAsync());
    }

    [Theory]
    [InlineData("/api/fingerprints/butina/jobs/$annealing/result", 404, "No job")] // the annealing service's
    [InlineData("/api/fingerprints/butina/jobs/" + Unknown + "/result", 404, "No job")]
    [InlineData("/api/fingerprints/butina/jobs/not-a-guid/result", 400, "GUID")]
    public async Task GetResult_OtherKindUnknownOrMalformed_Problem(string path, int status, string mentions)
    {
        using var response = await Services.Rest.GetAsync(fixture.Resolve(path), Token);
        Assert.Contains(mentions, await RestCalls.ProblemAsync(response, status), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Grpc_BadRequests_StatusWithMessage()
    {
        var client = new FingerprintsClient(Services.Fingerprints.Grpc);
        var annealing = new AnnealingClient(Services.Annealing.Grpc);
        SearchRequest Search(string dataset, int k = 5, string butinaJob = "") =>
            new() { DatasetId = dataset, ButinaJobId = butinaJob, QueryHex = FingerprintsBadInputFixture.EcfpHex, FingerprintType = FingerprintType.Ecfp4.Name, K = k };
        var ecfp = Services.Ecfp4.ToString();
        var calls = new (Func<Task> Call, StatusCode Expected, string Mentions)[]
        {
            (async () => await client.SearchAsync(Search(Unknown), Call), StatusCode.NotFound, "No dataset"),
            (async () => await client.SearchAsync(Search(ecfp, k: 0), Call), StatusCode.InvalidArgument, "k must be"),
            (async () => await client.SearchAsync(Search("zzz"), Call), StatusCode.InvalidArgument, "GUID"),
            (async () => await client.SearchAsync(Search(ecfp, butinaJob: fixture.MaccsButina.ToString()), Call), StatusCode.InvalidArgument, "clustered dataset"),
            (async () => await client.SearchAsync(Search(ecfp, butinaJob: "zzz"), Call), StatusCode.InvalidArgument, "Butina job id"),
            (async () => await client.StartButinaAsync(new StartButinaRequest { DatasetId = fixture.Dense.ToString() }, Call), StatusCode.InvalidArgument, "binary"),
            (async () => await annealing.StartAsync(new() { DatasetId = ecfp, MaxClusters = 2, CoolingFactor = 1 }, Call), StatusCode.InvalidArgument, "coolingFactor must lie strictly between 0 and 1"),
            (async () => await annealing.StartAsync(new() { DatasetId = ecfp, MaxClusters = 2, CoolingFactor = 0.99999 }, Call), StatusCode.ResourceExhausted, "(Salsa:Limits:MaxTemperatures)"),
            (async () => await annealing.StartAsync(new() { DatasetId = ecfp, MaxClusters = 2, MaxIterationsPerTemperature = 100_001 }, Call), StatusCode.ResourceExhausted, "(Salsa:Limits:MaxIterations)"),
            (async () => await client.GetButinaResultAsync(new JobRef { JobId = fixture.Annealing.ToString() }, Call), StatusCode.NotFound, "No job"),
        };

        foreach (var (call, expected, mentions) in calls)
        {
            var rpc = await Assert.ThrowsAsync<RpcException>(call);
            Assert.Equal(expected, rpc.StatusCode);
            Assert.Contains(mentions, rpc.Status.Detail, StringComparison.Ordinal);
        }

        await AssertSearchWorksAsync();
    }

    [Theory]
    [InlineData("/salsa.fingerprints.v1.Fingerprints/Search")]
    [InlineData("/salsa.fingerprints.v1.Fingerprints/StartButina")]
    public async Task Grpc_TruncatedMessage_InvalidArgumentAndServiceKeepsServing(string method)
    {
        var whole = new SearchRequest { DatasetId = Services.Ecfp4.ToString(), QueryHex = FingerprintsBadInputFixture.EcfpHex, FingerprintType = FingerprintType.Ecfp4.Name, K = 5 }.ToByteArray();
        var (status, message) = await RawGrpc.CallAsync(Services.Fingerprints.Ports.GrpcAddress, method, whole[..(whole.Length / 2)]);

        Assert.Equal((int)StatusCode.InvalidArgument, status);
        Assert.NotEmpty(message);
        await AssertSearchWorksAsync();
    }

    private async Task AssertSearchWorksAsync()
    {
        var request = new SearchRequest { DatasetId = Services.Ecfp4.ToString(), QueryHex = FingerprintsBadInputFixture.EcfpHex, FingerprintType = FingerprintType.Ecfp4.Name, K = 3 };
        var response = await new FingerprintsClient(Services.Fingerprints.Grpc).SearchAsync(request, Call);
        Assert.Equal(3, response.Hits.Count);
        Assert.Equal(1.0, response.Hits[0].Similarity);
    }

    private async Task<int> JobCountAsync() =>
        (await Services.Fingerprints.GetJsonAsync<List<JobView>>("/api/jobs?limit=1000")).Count + (await Services.Annealing.GetJsonAsync<List<JobView>>("/api/jobs?limit=1000")).Count;
}
