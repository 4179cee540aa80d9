using Grpc.Core;
using Salsa.Chem;
using Salsa.Contracts.Chem;
using Salsa.Contracts.Clients;
using Salsa.Services.Tests.Support;

namespace Salsa.Services.Tests.Chem;

/// <summary>Bad imports and fingerprint requests on both faces: a clear 4xx or gRPC status, nothing stored.</summary>
public sealed class ChemBadInputTests(ChemServiceFixture fixture) : IClassFixture<ChemServiceFixture>
{
    private ServiceUnderTest<ChemService> Service => fixture.Service;

    private ChemClient Chem => new(Service.Grpc);

    public static TheoryData<string, int, string> BadImports => new()
    {
        { "{\"source\":\"zinc\"}", 400, "Unknown compound source 'zinc'" },
        { "{}", 400, "An import names one of source" },
        { "{\"source\":\"fixture\",\"limit\":-1}", 400, "limit" },
        { "{\"source\":\"fixture\",\"limit\":\"5\"}", 400, "limit" },
        { "{\"source\":\"fixture\",\"limit\":2.5}", 400, "limit" },
        { "{\"source\":", 400, "JSON" },
        { "[\"fixture\"]", 400, "JSON" },
    };

    public static TheoryData<string, string, int, string> BadFingerprints => new()
    {
        { "$compounds", "pubchem-881", 400, "not available" },
        { "$compounds", "ecfp4", 400, "rdkit-ecfp4-1024" },
        { "$ecfp", "rdkit-ecfp4-1024", 400, "compounds dataset" },
        { "$dense", "rdkit-maccs-167", 400, "compounds dataset" },
        { "not-a-guid", "rdkit-maccs-167", 400, "dataset id" },
        { "00000000-0000-0000-0000-000000000001", "rdkit-maccs-167", 404, "No dataset" },
    };

    [Theory]
    [MemberData(nameof(BadImports))]
    public async Task RestImport_BadRequest_ClearProblemAndNothingStored(string body, int status, string mentions)
    {
        var before = await Service.Rest.CountDatasetsAsync();

        using var response = await Service.Rest.PostJsonTextAsync("/api/chem/imports", body);

        Assert.Contains(mentions, await RestCalls.ProblemAsync(response, status), StringComparison.OrdinalIgnoreCase);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Theory]
    [MemberData(nameof(BadFingerprints))]
    public async Task RestFingerprints_BadRequest_ClearProblem(string dataset, string type, int status, string mentions)
    {
        using var response = await Service.Rest.GetAsync($"/api/chem/compounds/{fixture.Resolve(dataset)}/fingerprints/{type}", TestContext.Current.CancellationToken);

        Assert.Contains(mentions, await RestCalls.ProblemAsync(response, status), StringComparison.OrdinalIgnoreCase);
    }

    [Theory]
    [InlineData("zinc", 0)]
    [InlineData("", 0)]
    [InlineData("fixture", -3)]
    public async Task GrpcImport_BadRequest_InvalidArgument(string source, int limit)
    {
        var before = await Service.Rest.CountDatasetsAsync();

        await GrpcCalls.FailsWithAsync(StatusCode.InvalidArgument, async () => await Chem.ImportAsync(new() { Source = source, Limit = limit }, GrpcCalls.Options));

        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Theory]
    [InlineData("$compounds", "pubchem-881", StatusCode.InvalidArgument)]
    [InlineData("$compounds", "", StatusCode.InvalidArgument)]
    [InlineData("$ecfp", "rdkit-ecfp4-1024", StatusCode.InvalidArgument)]
    [InlineData("$dense", "rdkit-ecfp4-1024", StatusCode.InvalidArgument)]
    [InlineData("", "rdkit-ecfp4-1024", StatusCode.InvalidArgument)]
    [InlineData("00000000-0000-0000-0000-000000000001", "rdkit-ecfp4-1024", StatusCode.NotFound)]
    public async Task GrpcFingerprints_BadRequest_Status(string dataset, string type, StatusCode expected)
    {
        var request = new FingerprintRequest { DatasetId = fixture.Resolve(dataset), FingerprintType = type };

        await GrpcCalls.FailsWithAsync(expected, async () => await Chem.FingerprintsAsync(request, GrpcCalls.Options));
    }

    [Fact]
    public async Task AfterBadInput_ServiceKeepsServing()
    {
        await GrpcCalls.FailsWithAsync(StatusCode.InvalidArgument, async () => await Chem.ImportAsync(new() { Source = "zinc" }, GrpcCalls.Options));
        using (var bad = await Service.Rest.PostJsonTextAsync("/api/chem/imports", "{\"source\":"))
        {
            await RestCalls.ProblemAsync(bad, 400);
        }

        var again = await Chem.ImportAsync(new() { Source = "fixture" }, GrpcCalls.Options);
        Assert.Equal(fixture.Compounds.DatasetId.ToString(), again.DatasetId);
        using var health = await Service.Rest.GetAsync("/health", TestContext.Current.CancellationToken);
        await RestCalls.EnsureAsync(health);
    }
}
