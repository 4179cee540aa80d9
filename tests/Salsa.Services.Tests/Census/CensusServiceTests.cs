using System.Globalization;
using Salsa.Census;
using Salsa.Contracts.Clients;
using Salsa.Hosting.Datasets;
using Salsa.Services.Tests.Support;
using ProtoKind = Salsa.Contracts.Datasets.DatasetKind;

namespace Salsa.Services.Tests.Census;

/// <summary>One census service (SQLite) with Indiana imported, shared by the tests of both faces.</summary>
public sealed class CensusServiceFixture : ServiceFixture<CensusService>
{
    /// <summary>The <c>indiana</c> import (a census dataset).</summary>
    public Guid Indiana { get; private set; }

    /// <summary>A query result (a dense dataset): Marion County's block groups.</summary>
    public Guid Marion { get; private set; }

    /// <summary>Replaces the <c>$census</c> and <c>$dense</c> placeholders with the dataset ids.</summary>
    public string Resolve(string text) => text
        .Replace("$census", Indiana.ToString(), StringComparison.Ordinal)
        .Replace("$dense", Marion.ToString(), StringComparison.Ordinal);

    public override async ValueTask InitializeAsync()
    {
        await base.InitializeAsync();
        Indiana = (await Service.Rest.PostForAsync<DatasetView>("/api/census/imports", new { source = "indiana" })).DatasetId;
        Marion = (await Service.Rest.PostForAsync<DatasetView>("/api/census/queries", new { datasetId = Indiana, counties = new[] { "18097" } })).DatasetId;
    }
}

public sealed class CensusServiceTests(CensusServiceFixture fixture) : IClassFixture<CensusServiceFixture>
{
    private static IReadOnlyList<BlockGroupRow> Rows => IndianaBlockGroups.All;

    private ServiceUnderTest<CensusService> Service => fixture.Service;

    private CensusClient Census => new(Service.Grpc);

    [Fact]
    public async Task Sources_Rest_ListsTheShippedFiles() =>
        Assert.Equal(["us", "indiana", "indiana-1000"], await Service.Rest.CatalogueNamesAsync("/api/census/sources"));

    [Fact]
    public async Task ImportIndiana_RestTwiceAndGrpc_OneDatasetHoldingTheFileRows()
    {
        var rest = await Service.Rest.PostForAsync<DatasetView>("/api/census/imports", new { source = "indiana" });
        var grpc = await Census.ImportAsync(new() { Source = "indiana" }, GrpcCalls.Options);

        Assert.Equal(fixture.Indiana, rest.DatasetId);
        Assert.Equal(fixture.Indiana.ToString(), grpc.DatasetId);
        Assert.Equal(("census", 5290, 2), (rest.Kind, rest.Count, rest.Dimension));
        Assert.Equal(ProtoKind.Census, grpc.Kind);
        Assert.Equal(Rows.Sum(r => r.Population), rest.TotalWeight);
        Assert.Equal(6_785_528, rest.TotalWeight);
        var datasets = await Service.GetJsonAsync<List<DatasetView>>("/api/datasets?limit=1000");
        Assert.Single(datasets, d => d.DatasetId == fixture.Indiana);
        Assert.Single(datasets, d => d.Name == rest.Name);

        var points = await new DatasetsClient(Service.Grpc).DownloadAsync(grpc.DatasetId);
        Assert.Equal(Rows.Select(r => r.GeoId), points.Labels);
        Assert.Equal(Rows.Select(r => (double)r.Population), points.Weights);
        Assert.Equal(Rows.SelectMany(r => new[] { r.Latitude, r.Longitude }), points.Values);
    }

    [Fact]
    public async Task Import_ConcurrentRequests_StoredOnce()
    {
        Task<DatasetView>[] rest = [.. Enumerable.Range(0, 2).Select(_ => Service.Rest.PostForAsync<DatasetView>("/api/census/imports", new { source = "indiana-1000" }))];
        Task<Contracts.Datasets.DatasetInfo>[] grpc = [.. Enumerable.Range(0, 2).Select(_ => Census.ImportAsync(new() { Source = "indiana-1000" }, GrpcCalls.Options).ResponseAsync)];
        await Task.WhenAll(rest.Concat<Task>(grpc));

        var views = await Task.WhenAll(rest);
        var infos = await Task.WhenAll(grpc);
        var id = Assert.Single(views.Select(d => d.DatasetId.ToString()).Concat(infos.Select(d => d.DatasetId)).Distinct());
        Assert.All(views, d => Assert.Equal((1000, 1_292_660.0), (d.Count, d.TotalWeight)));
        var datasets = await Service.GetJsonAsync<List<DatasetView>>("/api/datasets?limit=1000");
        Assert.Single(datasets, d => d.DatasetId.ToString() == id);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task QueryByState_Rest_CountAndPopulationAsInTheFile(bool skipUnpopulated)
    {
        var expected = Rows.Where(r => r.State == "18" && (!skipUnpopulated || r.Population > 0)).ToList();

        var result = await Service.Rest.PostForAsync<DatasetView>("/api/census/queries", new { datasetId = fixture.Indiana, states = new[] { "18" }, skipUnpopulated });

        Assert.Equal(("dense", 2, expected.Count), (result.Kind, result.Dimension, result.Count));
        Assert.Equal(skipUnpopulated ? 5281 : 5290, result.Count);
        Assert.Equal(expected.Sum(r => r.Population), result.TotalWeight);
        Assert.Equal(("equirectangular", "km"), (result.Metadata["projection"], result.Metadata["units"]));
        Assert.Equal(fixture.Indiana.ToString(), result.Metadata["census_dataset"]);
    }

    [Fact]
    public async Task QueryByState_Grpc_PlanarKmSpanIndianaWeightsArePopulation()
    {
        var info = await Census.QueryAsync(new() { DatasetId = fixture.Indiana.ToString(), States = { "18" }, SkipUnpopulated = true }, GrpcCalls.Options);
        var points = await new DatasetsClient(Service.Grpc).DownloadAsync(info.DatasetId);

        Assert.Equal(ProtoKind.Dense, info.Kind);
        var byId = Rows.ToDictionary(r => r.GeoId);
        var rows = points.Labels.Select(l => byId[l]).ToList();
        Assert.Equal(Rows.Where(r => r.Population > 0).Select(r => r.GeoId), points.Labels);
        Assert.Equal(rows.Select(r => (double)r.Population), points.Weights);
        var xs = points.Values.Where((_, i) => i % 2 == 0).ToList();
        var ys = points.Values.Where((_, i) => i % 2 == 1).ToList();
        // Indiana spans about 3.1° of longitude at 40° N (≈ 267 km) and 3.9° of latitude (≈ 433 km).
        Assert.InRange(xs.Max() - xs.Min(), 240, 290);
        Assert.InRange(ys.Max() - ys.Min(), 400, 460);
        var originLatitude = double.Parse(info.Metadata["origin_latitude"], CultureInfo.InvariantCulture);
        var originLongitude = double.Parse(info.Metadata["origin_longitude"], CultureInfo.InvariantCulture);
        Assert.InRange(originLatitude, 37.8, 41.8);
        Assert.InRange(originLongitude, -88.1, -84.7);
        // Planar distances are great-circle distances to within the projection's stretch at the
        // state's edges (cos 41.8° / cos 39.9° ≈ 0.97).
        for (var i = 0; i < rows.Count; i += 397)
        {
            var j = rows.Count - 1 - i;
            var planar = Math.Sqrt(Math.Pow(xs[i] - xs[j], 2) + Math.Pow(ys[i] - ys[j], 2));
            var sphere = IndianaBlockGroups.GreatCircleKm(rows[i], rows[j]);
            Assert.InRange(planar / sphere, 0.96, 1.04);
        }
    }

    [Fact]
    public async Task QueryByCounties_Grpc_OnlyThoseCountiesWithTheirPopulation()
    {
        string[] counties = ["18097", "18003", "18141"];
        var expected = Rows.Where(r => counties.Contains(r.County)).ToList();

        var info = await Census.QueryAsync(new() { DatasetId = fixture.Indiana.ToString(), Counties = { counties } }, GrpcCalls.Options);

        Assert.Equal(expected.Count, info.Count);
        Assert.Equal(expected.Sum(r => r.Population), info.TotalWeight);
        var points = await new DatasetsClient(Service.Grpc).DownloadAsync(info.DatasetId);
        Assert.Equal(expected.Select(r => r.GeoId), points.Labels);
    }

    [Fact]
    public async Task QueryByBoundingBox_Rest_ContiguousPopulatedInsideTheBox()
    {
        var box = new { minLatitude = 39.6, minLongitude = -86.4, maxLatitude = 40.0, maxLongitude = -85.9 };
        var expected = Rows.Where(r => r.Population > 0
            && r.Latitude >= box.minLatitude && r.Latitude <= box.maxLatitude && r.Longitude >= box.minLongitude && r.Longitude <= box.maxLongitude).ToList();

        var result = await Service.Rest.PostForAsync<DatasetView>("/api/census/queries",
            new { datasetId = fixture.Indiana, boundingBox = box, contiguousOnly = true, skipUnpopulated = true });

        Assert.InRange(expected.Count, 100, 2000);
        Assert.Equal(expected.Count, result.Count);
        Assert.Equal(expected.Sum(r => r.Population), result.TotalWeight);
    }

    [Fact]
    public async Task Query_SameCriteriaInAnotherOrder_SameDatasetStoredOnce()
    {
        var first = await Service.Rest.PostForAsync<DatasetView>("/api/census/queries", new { datasetId = fixture.Indiana, counties = new[] { "18105", "18057" } });
        var before = await Service.Rest.CountDatasetsAsync();
        var again = await Census.QueryAsync(new() { DatasetId = fixture.Indiana.ToString(), Counties = { "18057", "18105" } }, GrpcCalls.Options);

        Assert.Equal(first.DatasetId.ToString(), again.DatasetId);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
        Assert.Equal(Rows.Count(r => r.County is "18105" or "18057"), first.Count);
    }
}
