using System.Net.Http.Json;
using System.Text;
using System.Xml.Linq;
using Salsa.Chem;
using Salsa.Contracts.Common;
using Salsa.DataFiles;
using Salsa.Render;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Render;

/// <summary>The chem service and the render service on one store: compounds uploaded to the one are drawn by the other.</summary>
public sealed class MoleculeGridFixture : IAsyncLifetime
{
    private readonly TemporaryDirectory _directory = new();

    public ServiceUnderTest<ChemService> Chem { get; private set; } = null!;

    public ServiceUnderTest<RenderService> Render { get; private set; } = null!;

    /// <summary>Twelve compounds of the fixture, uploaded as SMILES lines.</summary>
    public CompoundUploadView Compounds { get; private set; } = null!;

    public async ValueTask InitializeAsync()
    {
        var store = TestStore.Sqlite(_directory);
        Chem = await ServiceUnderTest.StartAsync<ChemService>(store);
        Render = await ServiceUnderTest.StartAsync<RenderService>(store);
        var shipped = CompoundSet.ReadFile(CompoundSet.FixturePath);
        var text = string.Join('\n', Enumerable.Range(0, 12).Select(i => $"{shipped.Smiles[i]} {shipped.Ids[i]}"));
        using var response = await Chem.Rest.PostAsync("/api/chem/uploads?name=twelve&fingerprints=rdkit-ecfp4-1024", new StringContent(text, Encoding.UTF8, "text/plain"));
        Compounds = (await response.Content.ReadFromJsonAsync<CompoundUploadView>(RestCalls.Json))!;
    }

    public async ValueTask DisposeAsync()
    {
        await Render.DisposeAsync();
        await Chem.DisposeAsync();
        _directory.Dispose();
    }
}

/// <summary>A grid of compounds as RDKit draws them, captioned; bad requests refused before a job starts.</summary>
public sealed class MoleculeGridTests(MoleculeGridFixture fixture) : IClassFixture<MoleculeGridFixture>
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Grid_DrawsEachAskedCompound_InOrder_WithItsIdAndSize()
    {
        var render = fixture.Render.Rest;
        var job = await render.StartJobAsync("/api/render/molecule-grid", new { compoundsDatasetId = fixture.Compounds.Dataset.DatasetId, items = new[] { 7, 2, 11 }, sizes = new[] { 40.0, 12, 3 }, columns = 2 });
        var final = await render.WaitAsync(job.JobId);
        Assert.True(final.State == "succeeded", final.Error);

        var svg = XDocument.Parse(await render.GetStringAsync($"/api/jobs/{job.JobId}/artifacts/{Artifacts.MoleculesSvg}", Token));
        XNamespace ns = "http://www.w3.org/2000/svg";
        var shipped = CompoundSet.ReadFile(CompoundSet.FixturePath);
        Assert.Equal(3, svg.Root!.Elements(ns + "svg").Count());
        Assert.Equal(
            ["3 compounds, as RDKit draws them", shipped.Ids[7], "cluster 0 · 40 compounds", shipped.Ids[2], "cluster 1 · 12 compounds", shipped.Ids[11], "cluster 2 · 3 compounds"],
            svg.Root.Elements(ns + "text").Select(t => t.Value));
        Assert.Equal("440", svg.Root.Attribute("width")!.Value); // two columns of 220
    }

    public static TheoryData<string, int, string> BadGrids => new()
    {
        { "{\"compoundsDatasetId\":\"$compounds\",\"items\":[]}", 400, "draws 1 to 200 compounds; 0 were asked for" },
        { "{\"compoundsDatasetId\":\"$compounds\",\"items\":[0,12]}", 400, "Item 12 is not a compound of dataset" },
        { "{\"compoundsDatasetId\":\"$compounds\",\"items\":[-1]}", 400, "Item -1 is not a compound" },
        { "{\"compoundsDatasetId\":\"$compounds\",\"items\":[0,1],\"sizes\":[3]}", 400, "1 sizes for 2 items" },
        { "{\"compoundsDatasetId\":\"$compounds\",\"items\":[0],\"columns\":21}", 400, "columns must be 1 to 20" },
        { "{\"compoundsDatasetId\":\"$compounds\",\"items\":[0],\"cellSize\":20}", 400, "cellSize must be 80 to 800" },
        { "{\"compoundsDatasetId\":\"$fingerprints\",\"items\":[0]}", 400, "is binary; a molecule grid draws the compounds" },
        { "{\"compoundsDatasetId\":\"00000000-0000-0000-0000-000000000001\",\"items\":[0]}", 404, "No dataset" },
    };

    [Theory]
    [MemberData(nameof(BadGrids))]
    public async Task Grid_BadRequest_ClearProblem_NoJobStarted(string body, int status, string mentions)
    {
        var render = fixture.Render.Rest;
        var before = await render.CountJobsAsync();
        var json = body.Replace("$compounds", fixture.Compounds.Dataset.DatasetId.ToString(), StringComparison.Ordinal)
            .Replace("$fingerprints", fixture.Compounds.Dataset.Metadata["fingerprints." + FingerprintType.Ecfp4.Name], StringComparison.Ordinal);

        using var response = await render.PostJsonTextAsync("/api/render/molecule-grid", json);

        Assert.Contains(mentions, await RestCalls.ProblemAsync(response, status), StringComparison.Ordinal);
        Assert.Equal(before, await render.CountJobsAsync());
    }
}
