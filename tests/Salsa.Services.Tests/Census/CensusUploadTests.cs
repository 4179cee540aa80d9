using System.Globalization;
using System.Net;
using System.Text;
using Google.Protobuf;
using Grpc.Core;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Configuration;
using Salsa.Census;
using Salsa.Contracts.Census;
using Salsa.Contracts.Clients;
using Salsa.DataFiles;
using Salsa.Hosting.Datasets;
using Salsa.Services.Tests.Support;
using Salsa.Testing;
using PlaceColumns = Salsa.Contracts.Census.PlaceColumns;

namespace Salsa.Services.Tests.Census;

/// <summary>A census service that may fetch plain-http URLs from 127.0.0.1 (the test's own file server).</summary>
public sealed class CensusUploadFixture : ServiceFixture<CensusService>
{
    protected override IReadOnlyDictionary<string, string?> Settings { get; } = new Dictionary<string, string?>
    {
        ["Salsa:Files:AllowHttp"] = "true",
        ["Salsa:Files:AllowedNetworks:0"] = "127.0.0.1/32",
        ["Salsa:Files:MaxBytes"] = "400000",
    };
}

/// <summary>
/// A user's own places through the census service: CSV or GeoJSON, plain or gzip, as a body, a
/// multipart file, a gRPC client stream, a path or a URL — one census dataset per content, which
/// queries select by its own grouping columns; a bad row refuses the file with its line, and
/// nothing is stored.
/// </summary>
public sealed class CensusUploadTests(CensusUploadFixture fixture) : IClassFixture<CensusUploadFixture>
{
    private ServiceUnderTest<CensusService> Service => fixture.Service;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    /// <summary>300 towns of three European countries (deterministic), weighted by a made-up population.</summary>
    public static IReadOnlyList<(string Id, string Country, string Region, double Latitude, double Longitude, int Population)> Towns { get; } = MakeTowns();

    public static string TownsCsv(string delimiter = ",") =>
        string.Join(delimiter, "town_id", "country", "region", "lat", "lon", "population") + "\n"
        + string.Join('\n', Towns.Select(t => string.Join(delimiter, t.Id, t.Country, t.Region, F(t.Latitude), F(t.Longitude), F(t.Population))));

    [Fact]
    public async Task Csv_AsTheBody_ACensusDatasetOfTheRows_QueriedByItsOwnGroups()
    {
        using var response = await Service.Rest.PostAsync("/api/census/uploads?name=towns&id=town_id", new StringContent(TownsCsv(), Encoding.UTF8, "text/csv"), Token);
        var towns = await ReadAsync(response, HttpStatusCode.Created);

        Assert.Equal(("census", "towns", Towns.Count, 2), (towns.Kind, towns.Name, towns.Count, towns.Dimension));
        Assert.Equal(Towns.Sum(t => t.Population), towns.TotalWeight);
        Assert.Equal("country,region", towns.Metadata[CensusCatalog.GroupsKey]);
        Assert.Equal("population", towns.Metadata["weight_column"]);
        var points = await new DatasetsClient(Service.Grpc).DownloadAsync(towns.DatasetId.ToString());
        Assert.Equal(Towns.Select(t => t.Id), points.Labels);
        Assert.Equal(Towns.SelectMany(t => new[] { t.Latitude, t.Longitude }), points.Values);

        // France's towns, projected about their own population centre.
        var france = await Service.Rest.PostForAsync<DatasetView>("/api/census/queries", new { datasetId = towns.DatasetId, groups = new[] { "FR" } });
        var french = Towns.Where(t => t.Country == "FR").ToList();
        Assert.Equal(("dense", french.Count), (france.Kind, france.Count));
        var origin = EquirectangularProjection.FromMetadata(france.Metadata)!;
        Assert.Equal(french.Sum(t => t.Population * t.Latitude) / french.Sum(t => t.Population), origin.OriginLatitude, 9);
        Assert.InRange(origin.OriginLongitude, -5, 8);
        var frenchPoints = await new DatasetsClient(Service.Grpc).DownloadAsync(france.DatasetId.ToString());
        Assert.Equal(french.Select(t => t.Id), frenchPoints.Labels);
        Assert.All(frenchPoints.Values, v => Assert.InRange(v, -1200, 1200)); // km about the centre: France is ~1,000 km across

        // A region (the second grouping column) and a box combine.
        var bavaria = await Service.Rest.PostForAsync<DatasetView>("/api/census/queries", new { datasetId = towns.DatasetId, groups = new[] { "Bayern" }, boundingBox = new { minLatitude = 47.0, minLongitude = 10.0, maxLatitude = 49.0, maxLongitude = 14.0 } });
        Assert.Equal(Towns.Count(t => t.Region == "Bayern" && t.Latitude <= 49), bavaria.Count);

        // The census files' FIPS criteria do not apply to an upload: a clear 400.
        using var states = await Service.Rest.PostJsonTextAsync("/api/census/queries", $"{{\"datasetId\":\"{towns.DatasetId}\",\"states\":[\"18\"]}}");
        Assert.Contains("select its places with groups (its grouping columns: country,region)", await RestCalls.ProblemAsync(states, 400), StringComparison.Ordinal);
    }

    [Fact]
    public async Task GzipGeoJson_Multipart_AndCsvOverAGrpcClientStream_TheSamePlacesAreTheSameDataset()
    {
        var csv = await Service.Rest.PostAsync("/api/census/uploads?name=towns-2&id=town_id", new StringContent(TownsCsv(";"), Encoding.UTF8, "text/csv"), Token);
        var fromCsv = await ReadAsync(csv, HttpStatusCode.Created);

        using var form = new MultipartFormDataContent { { new ByteArrayContent(Fixtures.Gzip(TownsGeoJson())), "file", "towns.geojson.gz" } };
        using var geo = await Service.Rest.PostAsync("/api/census/uploads?name=towns-2&weight=population", form, Token);
        var fromGeoJson = await ReadAsync(geo, HttpStatusCode.Created);
        Assert.Equal(fromCsv.DatasetId, fromGeoJson.DatasetId);

        // gRPC: a header, then the file in small chunks.
        using var call = new CensusClient(Service.Grpc).Upload(GrpcCalls.Options);
        await call.RequestStream.WriteAsync(new UploadPlacesRequest { Header = new UploadPlacesHeader { Name = "towns-2", Columns = new PlaceColumns { Id = "town_id" } } }, Token);
        var bytes = Encoding.UTF8.GetBytes(TownsCsv("\t"));
        foreach (var chunk in bytes.Chunk(1000))
        {
            await call.RequestStream.WriteAsync(new UploadPlacesRequest { Chunk = ByteString.CopyFrom(chunk) }, Token);
        }

        await call.RequestStream.CompleteAsync();
        var fromGrpc = await call;
        Assert.Equal(fromCsv.DatasetId.ToString(), fromGrpc.DatasetId);
        Assert.Equal(Towns.Count, fromGrpc.Count);
    }

    [Fact]
    public async Task BadRow_RefusedWithItsLine_OverRestAndGrpc_NothingStored()
    {
        var lines = TownsCsv().Split('\n').ToList();
        lines[56] = "bad-town,FR,Bretagne,48.1,abc,1200";
        var before = await Service.Rest.CountDatasetsAsync();

        using var response = await Service.Rest.PostAsync("/api/census/uploads?name=bad", new StringContent(string.Join('\n', lines), Encoding.UTF8, "text/csv"), Token);
        Assert.Contains("line 57: lon 'abc' is not a number", await RestCalls.ProblemAsync(response, 400), StringComparison.Ordinal);

        using var call = new CensusClient(Service.Grpc).Upload(GrpcCalls.Options);
        await call.RequestStream.WriteAsync(new UploadPlacesRequest { Header = new UploadPlacesHeader { Name = "bad" } }, Token);
        await call.RequestStream.WriteAsync(new UploadPlacesRequest { Chunk = ByteString.CopyFromUtf8(string.Join('\n', lines)) }, Token);
        await call.RequestStream.CompleteAsync();
        var error = await Assert.ThrowsAsync<RpcException>(async () => await call);
        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.Contains("line 57", error.Status.Detail, StringComparison.Ordinal);

        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Theory]
    [InlineData("name=bad", "town,lat,lon\na,91,10", "line 2: latitude 91 is outside [−90, 90]")]
    [InlineData("name=bad", "town,lat,lon\na,45,200", "line 2: longitude 200 is outside [−180, 180]")]
    [InlineData("name=bad", "town,lat,lon,pop\na,45,10,-3", "line 2: weight -3 is negative")]
    [InlineData("name=bad", "town,lat,lon\na,45", "line 2: 2 fields, the header names 3")]
    [InlineData("name=bad", "town,north,east\na,45,10", "no latitude column")]
    [InlineData("name=bad&latitude=breite", "town,lat,lon\na,45,10", "no column 'breite'")]
    [InlineData("name=bad", "town,lat,lon\n", "holds no places")]
    [InlineData("name=bad", "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[1,2],[3,4]]}}]}", "feature 1: geometry is LineString")]
    [InlineData("name=bad", "{\"type\":\"FeatureCollection\",\"features\":[", "not JSON")]
    [InlineData("name=bad&format=shapefile", "a", "Unknown place file format")]
    [InlineData("name=", "lat,lon\n1,2", "needs a name")]
    public async Task BadFile_400NamingTheProblem_NothingStored(string query, string body, string expected)
    {
        var before = await Service.Rest.CountDatasetsAsync();

        using var response = await Service.Rest.PostAsync($"/api/census/uploads?{query}", new StringContent(body, Encoding.UTF8, "text/csv"), Token);

        Assert.Contains(expected, await RestCalls.ProblemAsync(response, 400), StringComparison.Ordinal);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Fact]
    public async Task TooLargeAFile_413_NothingStored()
    {
        var before = await Service.Rest.CountDatasetsAsync();
        var big = TownsCsv() + string.Concat(Enumerable.Repeat("\n" + TownsCsv().Split('\n')[1], 8000));

        using var response = await Service.Rest.PostAsync("/api/census/uploads?name=big", new StringContent(big, Encoding.UTF8, "text/csv"), Token);

        Assert.Contains("Salsa:Files:MaxBytes", await RestCalls.ProblemAsync(response, 413), StringComparison.Ordinal);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Theory]
    [InlineData(1)] // inside the trailer: the CRC and length
    [InlineData(8)] // the whole trailer
    [InlineData(2000)] // inside the deflate data: the last rows, the last longitude cut
    public async Task GzipCutShort_400_NothingStored(int cut)
    {
        var gzip = Fixtures.Gzip(TownsCsv());
        var before = await Service.Rest.CountDatasetsAsync();

        using var response = await Service.Rest.PostAsync("/api/census/uploads?name=cut&id=town_id", new ByteArrayContent(gzip[..^cut]), Token);

        Assert.Contains("cut: the gzip data is cut short or damaged", await RestCalls.ProblemAsync(response, 400), StringComparison.Ordinal);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
        using var whole = await Service.Rest.PostAsync("/api/census/uploads?name=cut&id=town_id", new ByteArrayContent(gzip), Token);
        Assert.Equal(Towns.Count, (await ReadAsync(whole, HttpStatusCode.Created)).Count);
    }

    [Fact]
    public async Task GzipDamaged_400_NothingStored()
    {
        var gzip = Fixtures.Gzip(TownsCsv());
        gzip[^6] ^= 0x01; // one bit of the CRC
        var before = await Service.Rest.CountDatasetsAsync();

        using var response = await Service.Rest.PostAsync("/api/census/uploads?name=damaged", new ByteArrayContent(gzip), Token);

        Assert.Contains("the gzip data is cut short or damaged", await RestCalls.ProblemAsync(response, 400), StringComparison.Ordinal);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Theory]
    [InlineData("noise", "not text at byte 45 (byte 0x00, a control character)")]
    [InlineData("latin1", "not text at byte 46 (a byte that is not UTF-8: save the file as UTF-8)")]
    public async Task NotText_400NamingTheByte_NothingStored(string kind, string expected)
    {
        byte[] body = kind == "noise"
            ? [.. Encoding.UTF8.GetBytes("town_id,lat,lon,population\nt1,48.85,2.35,100\n"), 0, 1, 2, 3]
            : Encoding.Latin1.GetBytes("town_id,lat,lon,population\nt1,48.85,2.35,100\nZürich,47.37,8.54,400000\n");
        var before = await Service.Rest.CountDatasetsAsync();

        using var response = await Service.Rest.PostAsync($"/api/census/uploads?name={kind}", new ByteArrayContent(body), Token);

        Assert.Equal($"{kind} is {expected}; nothing of it is stored.", await RestCalls.ProblemAsync(response, 400));
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Fact]
    public async Task Utf16WithItsByteOrderMark_ReadAsText()
    {
        var utf16 = Encoding.Unicode.GetPreamble().Concat(Encoding.Unicode.GetBytes(TownsCsv("\t"))).ToArray();

        using var response = await Service.Rest.PostAsync("/api/census/uploads?name=utf16&id=town_id", new ByteArrayContent(utf16), Token);

        Assert.Equal(Towns.Count, (await ReadAsync(response, HttpStatusCode.Created)).Count);
    }

    [Theory]
    [InlineData("application/x-www-form-urlencoded")] // what curl --data-binary sends
    [InlineData(null)]
    public async Task AFileWithCurlsOrNoContentType_ReadByItsContent(string? contentType)
    {
        var content = new ByteArrayContent(Encoding.UTF8.GetBytes(TownsCsv()));
        if (contentType is not null)
        {
            content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue(contentType);
        }

        using var response = await Service.Rest.PostAsync("/api/census/uploads?name=typed&id=town_id", content, Token);

        Assert.Equal(Towns.Count, (await ReadAsync(response, HttpStatusCode.Created)).Count);
    }

    [Fact]
    public async Task ImportByPathAndByUrl_TheSameDatasetAsTheUpload_AStoredDatasetByItsId()
    {
        using var upload = await Service.Rest.PostAsync("/api/census/uploads?name=towns.csv&id=town_id", new StringContent(TownsCsv(), Encoding.UTF8, "text/csv"), Token);
        var uploaded = await ReadAsync(upload, HttpStatusCode.Created);

        using var folder = new TemporaryDirectory();
        var path = Path.Combine(folder.Path, "towns.csv");
        await File.WriteAllTextAsync(path, TownsCsv(), Token);
        var byPath = await Service.Rest.PostForAsync<DatasetView>("/api/census/imports", new { location = path, columns = new { id = "town_id" } });
        Assert.Equal(uploaded.DatasetId, byPath.DatasetId);

        // A real web server on loopback serves the file gzip-compressed.
        await using var server = await StartFileServerAsync(Fixtures.Gzip(TownsCsv()));
        var url = $"{server.Urls.First()}/files/towns.csv";
        var byUrl = await new CensusClient(Service.Grpc).ImportAsync(new ImportCensusRequest { Location = url, Places = new UploadPlacesHeader { Columns = new PlaceColumns { Id = "town_id" } } }, GrpcCalls.Options);
        Assert.Equal(uploaded.DatasetId.ToString(), byUrl.DatasetId);

        var byId = await Service.Rest.PostForAsync<DatasetView>("/api/census/imports", new { datasetId = uploaded.DatasetId });
        Assert.Equal(uploaded.DatasetId, byId.DatasetId);

        using var missing = await Service.Rest.PostJsonTextAsync("/api/census/imports", $"{{\"location\":\"{server.Urls.First()}/files/none.csv\"}}");
        Assert.Contains("/files/none.csv: no file came from it", await RestCalls.ProblemAsync(missing, 400), StringComparison.Ordinal);
        using var two = await Service.Rest.PostJsonTextAsync("/api/census/imports", $"{{\"source\":\"indiana\",\"location\":\"{path}\"}}");
        Assert.Contains("this one names 2", await RestCalls.ProblemAsync(two, 400), StringComparison.Ordinal);
    }

    private static async Task<WebApplication> StartFileServerAsync(byte[] file)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Configuration.Sources.Clear(); // not the service's appsettings.json beside the tests
        builder.Configuration.AddInMemoryCollection();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        var app = builder.Build();
        app.MapGet("/files/towns.csv", () => Results.Bytes(file, "application/gzip"));
        await app.StartAsync(Token);
        return app;
    }

    private static string TownsGeoJson()
    {
        var features = Towns.Select(t => string.Create(CultureInfo.InvariantCulture,
            $"{{\"type\":\"Feature\",\"id\":\"{t.Id}\",\"geometry\":{{\"type\":\"Point\",\"coordinates\":[{t.Longitude:R},{t.Latitude:R}]}},\"properties\":{{\"country\":\"{t.Country}\",\"region\":\"{t.Region}\",\"population\":{t.Population}}}}}"));
        return $"{{\"type\":\"FeatureCollection\",\"features\":[{string.Join(",\n", features)}]}}";
    }

    private static async Task<DatasetView> ReadAsync(HttpResponseMessage response, HttpStatusCode expected)
    {
        var text = await response.Content.ReadAsStringAsync(Token);
        Assert.True(response.StatusCode == expected, $"{(int)response.StatusCode}: {text}");
        return System.Text.Json.JsonSerializer.Deserialize<DatasetView>(text, RestCalls.Json)!;
    }

    private static string F(double value) => value.ToString("R", CultureInfo.InvariantCulture);

    private static List<(string, string, string, double, double, int)> MakeTowns()
    {
        (string Country, string Region, double Lat, double Lon, double Spread)[] regions =
        [
            ("FR", "Île-de-France", 48.85, 2.35, 0.6), ("FR", "Bretagne", 48.1, -2.8, 0.9), ("FR", "Provence", 43.6, 5.6, 0.8),
            ("DE", "Bayern", 48.6, 11.6, 1.0), ("DE", "Berlin", 52.5, 13.4, 0.3), ("DE", "Hamburg", 53.55, 10.0, 0.3),
            ("IT", "Lazio", 41.9, 12.5, 0.6), ("IT", "Lombardia", 45.5, 9.4, 0.7), ("IT", "Sicilia", 37.5, 14.2, 0.8),
            ("IT", "Campania", 40.85, 14.6, 0.5),
        ];
        var random = new Random(2026);
        return [.. Enumerable.Range(0, 300).Select(i =>
        {
            var r = regions[i % regions.Length];
            return ($"town-{i:000}", r.Country, r.Region,
                Math.Round(r.Lat + ((random.NextDouble() - 0.5) * r.Spread), 5),
                Math.Round(r.Lon + ((random.NextDouble() - 0.5) * r.Spread * 1.4), 5),
                500 + random.Next(200_000));
        })];
    }
}
