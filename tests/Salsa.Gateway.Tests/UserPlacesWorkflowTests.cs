using System.Globalization;
using System.Text;
using System.Text.Json;
using Salsa.Store.Sqlite;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The census mashup on a user's own places, as the workflow <c>census-places</c> runs it on the
/// embedded default: a CSV the test writes (places in Japan and New Zealand, far from any census
/// file) goes through import → query → deterministic annealing → map; a file with a bad row ends
/// the run at the import with the row's line, and stores nothing.
/// </summary>
public sealed class UserPlacesWorkflowTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task OwnCsvOutsideTheUs_ImportedClusteredAndMappedOnItsOwnExtent()
    {
        using var directory = new TemporaryDirectory();
        var places = Places();
        var file = directory.Combine("my places.csv");
        await File.WriteAllTextAsync(file, Csv(places), Token);
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: Token);

        var id = await gateway.StartRunAsync(new
        {
            workflow = "census-places",
            parameters = new Dictionary<string, object> { ["import.file"] = file, ["import.idColumn"] = "place", ["cluster.maxClusters"] = 4 },
        }, Token);
        var run = await gateway.Runs.WaitAsync(id, Token);
        Assert.True(run.State == Runs.RunState.Succeeded, run.Error);

        // Every place with people, in four clusters holding all their weight.
        var populated = places.Where(p => p.Weight > 0).ToList();
        Assert.Equal(places.Count, run.Steps.Single(s => s.Id == "import").Outputs!["count"]!.GetValue<int>());
        Assert.Equal(populated.Count, run.Steps.Single(s => s.Id == "query").Outputs!["count"]!.GetValue<int>());
        var table = run.Steps.Single(s => s.Id == "cluster").Outputs!["table"]!.AsArray();
        Assert.Equal(4, table.Count);
        Assert.Equal(populated.Sum(p => p.Weight), table.Sum(r => r!["weight"]!.GetValue<double>()), 1e-6);

        // The map is one view projected about the places' own weighted centre (no US insets), and its
        // GeoJSON puts every cluster's centre among them.
        var svg = Encoding.UTF8.GetString((await gateway.Runs.GetArtifactAsync(id, "map.svg", Token)).Data);
        var (latitude, longitude) = (populated.Sum(p => p.Weight * p.Latitude) / populated.Sum(p => p.Weight), populated.Sum(p => p.Weight * p.Longitude) / populated.Sum(p => p.Weight));
        Assert.Contains(string.Create(CultureInfo.InvariantCulture, $"Equirectangular projection centred on {latitude:0.0}°N {longitude:0.0}°E"), svg, StringComparison.Ordinal);
        Assert.DoesNotContain("Conterminous US", svg, StringComparison.Ordinal);
        using var geojson = JsonDocument.Parse((await gateway.Runs.GetArtifactAsync(id, "clusters.geojson", Token)).Data);
        var centres = geojson.RootElement.GetProperty("features").EnumerateArray()
            .Select(f => (Lon: f.GetProperty("properties").GetProperty("centreLon").GetDouble(), Lat: f.GetProperty("properties").GetProperty("centreLat").GetDouble())).ToList();
        Assert.Equal(4, centres.Count);
        Assert.All(centres, c => Assert.True(c.Lon is > 125 and < 180 && c.Lat is > -48 and < 46, c.ToString()));
        Assert.Contains(centres, c => c.Lat < 0); // New Zealand has a cluster of its own
        Assert.Contains(centres, c => c.Lat > 30); // and so has Japan
    }

    [Fact]
    public async Task TheShippedExamples_RunByName_WhereverTheGatewayWasStarted()
    {
        // This process runs in the test's bin folder, far from the repository's root: the workflows'
        // example files are read from the workflows' folder, not from here.
        Assert.False(File.Exists(Path.Combine(Environment.CurrentDirectory, "workflows", "census-places.yaml")));
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: Token);

        foreach (var workflow in new[] { "census-places", "chem-compounds" })
        {
            var run = await gateway.Runs.WaitAsync(await gateway.StartRunAsync(new { workflow }, Token), Token);

            Assert.True(run.State == Runs.RunState.Succeeded, $"{workflow}: {run.Error}");
            Assert.True(Path.IsPathRooted(run.Steps.Single(s => s.Id == "import").Parameters!["file"]!.GetValue<string>()));
        }
    }

    [Fact]
    public async Task OwnCsvWithABadRow_TheRunFailsAtTheImportNamingTheLine_NothingStored()
    {
        using var directory = new TemporaryDirectory();
        var lines = Csv(Places()).Split('\n');
        lines[41] = "bad-place,JP,35.7,139.7,many";
        var file = directory.Combine("bad.csv");
        await File.WriteAllTextAsync(file, string.Join('\n', lines), Token);
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: Token);

        var id = await gateway.StartRunAsync(new { workflow = "census-places", parameters = new Dictionary<string, object> { ["import.file"] = file } }, Token);
        var run = await gateway.Runs.WaitAsync(id, Token);

        Assert.Equal(Runs.RunState.Failed, run.State);
        var import = run.Steps.Single(s => s.Id == "import");
        Assert.Contains("line 42: population 'many' is not a number", import.Error, StringComparison.Ordinal);
        Assert.All(run.Steps.Where(s => s.Id != "import"), s => Assert.Null(s.Started));
        await using var store = new SqliteDataStore(directory.Combine("salsa.db"));
        Assert.Empty(await store.ListDatasetsAsync(tenant: null, cancellationToken: Token));
    }

    /// <summary>200 places about Tokyo, Osaka and Sapporo, and about Auckland and Christchurch, some with nobody.</summary>
    private static List<(string Id, string Country, double Latitude, double Longitude, double Weight)> Places()
    {
        (string Country, double Lat, double Lon)[] centres = [("JP", 35.68, 139.69), ("JP", 34.69, 135.50), ("JP", 43.06, 141.35), ("NZ", -36.85, 174.76), ("NZ", -43.53, 172.64)];
        var random = new Random(15);
        return [.. Enumerable.Range(0, 200).Select(i =>
        {
            var (country, lat, lon) = centres[i % centres.Length];
            return ($"p{i:000}", country, Math.Round(lat + random.NextDouble() - 0.5, 4), Math.Round(lon + random.NextDouble() - 0.5, 4), i % 17 == 0 ? 0 : 100 + random.Next(50_000));
        })];
    }

    private static string Csv(IEnumerable<(string Id, string Country, double Latitude, double Longitude, double Weight)> places) =>
        "place,country,latitude,longitude,population\n"
        + string.Join('\n', places.Select(p => string.Create(CultureInfo.InvariantCulture, $"{p.Id},{p.Country},{p.Latitude:R},{p.Longitude:R},{p.Weight:R}")));
}
