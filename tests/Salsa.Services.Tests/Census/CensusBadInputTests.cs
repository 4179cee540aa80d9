using Google.Protobuf;
using Grpc.Core;
using Salsa.Census;
using Salsa.Contracts.Census;
using Salsa.Contracts.Clients;
using Salsa.Services.Tests.Support;

namespace Salsa.Services.Tests.Census;

/// <summary>Bad imports and queries on both faces: a clear 4xx or gRPC status, nothing stored, the service serving on.</summary>
public sealed class CensusBadInputTests(CensusServiceFixture fixture) : IClassFixture<CensusServiceFixture>
{
    private const string Imports = "/api/census/imports";
    private const string Queries = "/api/census/queries";

    private ServiceUnderTest<CensusService> Service => fixture.Service;

    public static TheoryData<string, string, int, string> BadRequests => new()
    {
        { Imports, "{\"source\":\"texas\"}", 400, "Unknown census source 'texas'" },
        { Imports, "{}", 400, "An import names one of source" },
        { Imports, "{\"source\":", 400, "JSON" },
        { Imports, "{\"source\":18}", 400, "source" },
        { Queries, "{\"datasetId\":\"$census\",\"states\":[\"99\"]}", 400, "selects no block groups" },
        { Queries, "{\"datasetId\":\"$census\",\"states\":[\"06\"],\"skipUnpopulated\":true}", 400, "selects no block groups" },
        { Queries, "{\"datasetId\":\"$census\",\"states\":[\"IN\"]}", 400, "two-digit" },
        { Queries, "{\"datasetId\":\"$census\",\"states\":[null]}", 400, "two-digit" },
        { Queries, "{\"datasetId\":\"$census\",\"states\":[\"18\",null]}", 400, "two-digit" },
        { Queries, "{\"datasetId\":\"$census\",\"counties\":[null]}", 400, "five-digit" },
        { Queries, "{\"datasetId\":\"$census\",\"states\":\"18\"}", 400, "states" },
        { Queries, "{\"datasetId\":\"$census\",\"states\":null}", 400, "states" },
        { Queries, "{\"datasetId\":\"$census\",\"counties\":null}", 400, "counties" },
        { Queries, "{\"datasetId\":\"$census\",\"counties\":[\"097\"]}", 400, "five-digit" },
        { Queries, BoxQuery("30", "-60", "31", "-59"), 400, "selects no block groups" },
        { Queries, BoxQuery("41", "-87", "39", "-86"), 400, "bounding box" },
        { Queries, BoxQuery("39", "-86", "41", "-87"), 400, "bounding box" },
        { Queries, BoxQuery("39", "-86", "95", "-85"), 400, "bounding box" },
        { Queries, BoxQuery("\"NaN\"", "-86", "41", "-85"), 400, "minLatitude" },
        { Queries, "{\"datasetId\":\"$census\",\"states\":[\"18\"]", 400, "JSON" },
        { Queries, "{\"states\":[\"18\"]}", 400, "datasetId" },
        { Queries, "{\"datasetId\":\"not-a-guid\"}", 400, "Guid" },
        { Queries, "{\"datasetId\":\"00000000-0000-0000-0000-000000000001\"}", 404, "No dataset" },
        { Queries, "{\"datasetId\":\"$dense\",\"states\":[\"18\"]}", 400, "census dataset" },
        { Queries, CodesQuery(10_001, 0), 413, "10,001 state and county codes exceed this service's limit of 10,000 (Salsa:Limits:MaxQueryCodes)" },
        { Queries, CodesQuery(5_000, 5_001), 413, "(Salsa:Limits:MaxQueryCodes)" },
    };

    /// <summary>A query of the Indiana import naming Indiana <paramref name="states"/> times and Marion County <paramref name="counties"/> times.</summary>
    private static string CodesQuery(int states, int counties) =>
        "{\"datasetId\":\"$census\",\"states\":[" + string.Join(',', Enumerable.Repeat("\"18\"", states)) + "],\"counties\":["
        + string.Join(',', Enumerable.Repeat("\"18097\"", counties)) + "]}";

    /// <summary>A query of the Indiana import by a bounding box given as JSON number text.</summary>
    private static string BoxQuery(string minLatitude, string minLongitude, string maxLatitude, string maxLongitude) =>
        "{\"datasetId\":\"$census\",\"boundingBox\":{\"minLatitude\":" + minLatitude + ",\"minLongitude\":" + minLongitude
        + ",\"maxLatitude\":" + maxLatitude + ",\"maxLongitude\":" + maxLongitude + "}}";

    [Theory]
    [MemberData(nameof(BadRequests))]
    public async Task Rest_BadRequest_ClearProblemAndNothingStored(string path, string body, int status, string mentions)
    {
        var before = await Service.Rest.CountDatasetsAsync();

        using var response = await Service.Rest.PostJsonTextAsync(path, fixture.Resolve(body));

        Assert.Contains(mentions, await RestCalls.ProblemAsync(response, status), StringComparison.OrdinalIgnoreCase);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Fact]
    public async Task GrpcImport_UnknownSource_InvalidArgumentNamingTheSources()
    {
        var client = new CensusClient(Service.Grpc);

        var message = await GrpcCalls.FailsWithAsync(StatusCode.InvalidArgument, async () => await client.ImportAsync(new() { Source = "texas" }, GrpcCalls.Options));
        await GrpcCalls.FailsWithAsync(StatusCode.InvalidArgument, async () => await client.ImportAsync(new(), GrpcCalls.Options));

        Assert.Contains("indiana", message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("", "18", StatusCode.InvalidArgument)]
    [InlineData("nope", "18", StatusCode.InvalidArgument)]
    [InlineData("00000000-0000-0000-0000-000000000001", "18", StatusCode.NotFound)]
    [InlineData("$census", "99", StatusCode.InvalidArgument)]
    [InlineData("$census", "Indiana", StatusCode.InvalidArgument)]
    [InlineData("$dense", "18", StatusCode.InvalidArgument)]
    public async Task GrpcQuery_BadRequest_Status(string dataset, string state, StatusCode expected)
    {
        var request = new QueryCensusRequest { DatasetId = fixture.Resolve(dataset), States = { state } };

        await GrpcCalls.FailsWithAsync(expected, async () => await new CensusClient(Service.Grpc).QueryAsync(request, GrpcCalls.Options));
    }

    [Fact]
    public async Task GrpcQuery_InvertedBoxOrTruncatedMessage_InvalidArgument()
    {
        var inverted = new QueryCensusRequest
        {
            DatasetId = fixture.Indiana.ToString(),
            BoundingBox = new BoundingBox { MinLatitude = 41, MinLongitude = -86, MaxLatitude = 39, MaxLongitude = -85 },
        };
        await GrpcCalls.FailsWithAsync(StatusCode.InvalidArgument, async () => await new CensusClient(Service.Grpc).QueryAsync(inverted, GrpcCalls.Options));

        var whole = new QueryCensusRequest { DatasetId = fixture.Indiana.ToString(), States = { "18" }, Counties = { "18097" } }.ToByteArray();
        var (status, message) = await RawGrpc.CallAsync(Service.Ports.GrpcAddress, "/salsa.census.v1.Census/Query", whole[..(whole.Length - 3)]);
        Assert.Equal((int)StatusCode.InvalidArgument, status);
        Assert.NotEmpty(message);
    }

    [Fact]
    public async Task GrpcQuery_OverCodeLimit_ResourceExhaustedThenServesAtTheLimit()
    {
        var client = new CensusClient(Service.Grpc);
        var before = await Service.Rest.CountDatasetsAsync();
        var over = new QueryCensusRequest { DatasetId = fixture.Indiana.ToString(), Counties = { Enumerable.Repeat("18097", 10_001) } };

        var message = await GrpcCalls.FailsWithAsync(StatusCode.ResourceExhausted, async () => await client.QueryAsync(over, GrpcCalls.Options));

        Assert.Contains("(Salsa:Limits:MaxQueryCodes)", message, StringComparison.Ordinal);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
        // Codes named more than once select, and name, what naming them once does.
        var atLimit = new QueryCensusRequest { DatasetId = fixture.Indiana.ToString(), Counties = { Enumerable.Repeat("18097", 10_000) } };
        Assert.Equal(fixture.Marion.ToString(), (await client.QueryAsync(atLimit, GrpcCalls.Options)).DatasetId);
    }

    [Fact]
    public async Task AfterBadInput_ServiceKeepsServing()
    {
        using (var bad = await Service.Rest.PostJsonTextAsync(Queries, fixture.Resolve("{\"datasetId\":\"$census\",\"states\":[\"99\"]}")))
        {
            await RestCalls.ProblemAsync(bad, 400);
        }

        using var health = await Service.Rest.GetAsync("/health", TestContext.Current.CancellationToken);
        await RestCalls.EnsureAsync(health);
        var info = await new CensusClient(Service.Grpc).QueryAsync(new() { DatasetId = fixture.Indiana.ToString(), Counties = { "18097" } }, GrpcCalls.Options);
        Assert.Equal(fixture.Marion.ToString(), info.DatasetId);
    }
}
