using Salsa.Chem;
using Salsa.Contracts.Clients;
using Salsa.Hosting.Datasets;
using Salsa.Services.Tests.Support;
using ProtoKind = Salsa.Contracts.Datasets.DatasetKind;

namespace Salsa.Services.Tests.Chem;

/// <summary>One chem service (SQLite) with the 500-compound fixture imported, shared by the tests of both faces.</summary>
public sealed class ChemServiceFixture : ServiceFixture<ChemService>
{
    /// <summary>The <c>fixture</c> import (a compounds dataset).</summary>
    public DatasetView Compounds { get; private set; } = null!;

    /// <summary>A dense upload: not compounds.</summary>
    public Guid Dense { get; private set; }

    /// <summary>Replaces <c>$compounds</c>, <c>$ecfp</c> (its ECFP4 dataset) and <c>$dense</c> with dataset ids.</summary>
    public string Resolve(string text) => text
        .Replace("$compounds", Compounds.DatasetId.ToString(), StringComparison.Ordinal)
        .Replace("$ecfp", Compounds.Metadata["fingerprints." + ChemFixtureFile.Ecfp4], StringComparison.Ordinal)
        .Replace("$dense", Dense.ToString(), StringComparison.Ordinal);

    public override async ValueTask InitializeAsync()
    {
        await base.InitializeAsync();
        Compounds = await Service.Rest.PostForAsync<DatasetView>("/api/chem/imports", new { source = "fixture" });
        Dense = (await Service.Rest.UploadCsvAsync("name=plain&kind=dense&dimension=2", "x,y\n1,2\n3,4\n")).DatasetId;
    }
}

public sealed class ChemServiceTests(ChemServiceFixture fixture) : IClassFixture<ChemServiceFixture>
{
    public static TheoryData<string, int> Types => new() { { ChemFixtureFile.Ecfp4, 1024 }, { ChemFixtureFile.Maccs, 167 } };

    private ServiceUnderTest<ChemService> Service => fixture.Service;

    private ChemClient Chem => new(Service.Grpc);

    [Fact]
    public async Task Sources_Rest_ListsTheShippedFiles() =>
        Assert.Equal(["40k", "all", "fixture"], await Service.Rest.CatalogueNamesAsync("/api/chem/sources"));

    [Fact]
    public async Task FingerprintTypes_RestAndGrpc_TheShippedTypesWithTheirSizes()
    {
        var rest = await Service.GetJsonAsync<List<FingerprintTypeView>>("/api/chem/fingerprint-types");
        var grpc = await Chem.ListFingerprintTypesAsync(new(), GrpcCalls.Options);

        Assert.Equal([(ChemFixtureFile.Ecfp4, 1024), (ChemFixtureFile.Maccs, 167)], rest.Select(t => (t.Name, t.Bits)));
        Assert.Equal(rest.Select(t => (t.Name, t.Bits, t.Description)), grpc.Types_.Select(t => (t.Name, t.Bits, t.Description)));
    }

    [Fact]
    public async Task ImportFixture_RestTwiceAndGrpc_SameDatasetsNothingDuplicated()
    {
        var before = await Service.Rest.CountDatasetsAsync();

        var rest = await Service.Rest.PostForAsync<DatasetView>("/api/chem/imports", new { source = "fixture" });
        var grpc = await Chem.ImportAsync(new() { Source = "fixture" }, GrpcCalls.Options);

        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
        Assert.Equal(fixture.Compounds.DatasetId, rest.DatasetId);
        Assert.Equal(rest.DatasetId.ToString(), grpc.DatasetId);
        Assert.Equal(("compounds", 500), (rest.Kind, rest.Count));
        Assert.Equal(ProtoKind.Compounds, grpc.Kind);
        Assert.Equal(rest.Metadata, grpc.Metadata);
        Assert.Equal([ChemFixtureFile.Ecfp4, ChemFixtureFile.Maccs], rest.Metadata.Keys.Where(k => k.StartsWith("fingerprints.", StringComparison.Ordinal)).Select(k => k["fingerprints.".Length..]).Order(StringComparer.Ordinal));
        var compounds = await new DatasetsClient(Service.Grpc).DownloadAsync(grpc.DatasetId);
        Assert.Equal(ChemFixtureFile.All.Select(c => c.Id), compounds.Labels);
    }

    [Theory]
    [MemberData(nameof(Types))]
    public async Task Fingerprints_EachType_BitLengthCountAndBitsAsInTheFile(string type, int bits)
    {
        var rest = await Service.GetJsonAsync<DatasetView>($"/api/chem/compounds/{fixture.Compounds.DatasetId}/fingerprints/{type}");
        var grpc = await Chem.FingerprintsAsync(new() { DatasetId = fixture.Compounds.DatasetId.ToString(), FingerprintType = type }, GrpcCalls.Options);

        Assert.Equal(fixture.Compounds.Metadata["fingerprints." + type], rest.DatasetId.ToString());
        Assert.Equal(rest.DatasetId.ToString(), grpc.DatasetId);
        Assert.Equal(("binary", bits, 500, type), (rest.Kind, rest.Bits, rest.Count, rest.FingerprintType));
        Assert.Equal(500, rest.TotalWeight);
        Assert.Equal(fixture.Compounds.DatasetId.ToString(), rest.Metadata["compounds_dataset"]);

        var points = await new DatasetsClient(Service.Grpc).DownloadAsync(grpc.DatasetId);
        var words = (bits + 63) / 64;
        Assert.Equal(500 * words, points.Words.Count);
        Assert.Equal(ChemFixtureFile.All.Select(c => c.Id), points.Labels);
        Assert.All(points.Weights, w => Assert.Equal(1.0, w));
        foreach (var c in new[] { 0, 1, 2, 137, 250, 498, 499 })
        {
            var hex = ChemFixtureFile.All[c].Hex[type];
            var expected = Enumerable.Range(0, bits).Where(i => ChemFixtureFile.HexBit(hex, i));
            var actual = Enumerable.Range(0, words * 64).Where(i => ((points.Words[c * words + i / 64] >> (i % 64)) & 1) == 1);
            Assert.Equal(expected, actual);
            Assert.NotEmpty(expected);
        }
    }

    [Fact]
    public async Task ImportWithLimit_FirstCompoundsOnly_OwnDatasets()
    {
        var rest = await Service.Rest.PostForAsync<DatasetView>("/api/chem/imports", new { source = "fixture", limit = 25 });
        var grpc = await Chem.ImportAsync(new() { Source = "fixture", Limit = 25 }, GrpcCalls.Options);

        Assert.Equal(rest.DatasetId.ToString(), grpc.DatasetId);
        Assert.NotEqual(fixture.Compounds.DatasetId, rest.DatasetId);
        Assert.Equal(25, rest.Count);
        var maccs = await Chem.FingerprintsAsync(new() { DatasetId = grpc.DatasetId, FingerprintType = ChemFixtureFile.Maccs }, GrpcCalls.Options);
        Assert.Equal(25, maccs.Count);
        Assert.NotEqual(fixture.Compounds.Metadata["fingerprints." + ChemFixtureFile.Maccs], maccs.DatasetId);
        var points = await new DatasetsClient(Service.Grpc).DownloadAsync(maccs.DatasetId);
        Assert.Equal(ChemFixtureFile.All.Take(25).Select(c => c.Id), points.Labels);
    }

    [Theory]
    [InlineData(500)]
    [InlineData(501)]
    [InlineData(int.MaxValue)]
    public async Task ImportWithLimit_NotCuttingTheFile_IsTheWholeImport(int limit)
    {
        var rest = await Service.Rest.PostForAsync<DatasetView>("/api/chem/imports", new { source = "fixture", limit });
        var grpc = await Chem.ImportAsync(new() { Source = "fixture", Limit = limit }, GrpcCalls.Options);

        Assert.Equal(fixture.Compounds.DatasetId, rest.DatasetId);
        Assert.Equal(fixture.Compounds.DatasetId.ToString(), grpc.DatasetId);
        Assert.Equal(ChemFixtureFile.All.Count, rest.Count);
    }

    [Fact]
    public async Task ImportWithLimit_OneShortOfTheFile_OwnDataset()
    {
        var cut = await Service.Rest.PostForAsync<DatasetView>("/api/chem/imports", new { source = "fixture", limit = ChemFixtureFile.All.Count - 1 });

        Assert.NotEqual(fixture.Compounds.DatasetId, cut.DatasetId);
        Assert.Equal(ChemFixtureFile.All.Count - 1, cut.Count);
    }
}
