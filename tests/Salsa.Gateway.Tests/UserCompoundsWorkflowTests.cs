using System.Text;
using System.Xml.Linq;
using Salsa.DataFiles;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The chemistry mashup on a user's own compounds, as the workflow <c>chem-compounds</c> runs it on
/// the embedded default: a SMILES file the test writes, with molecules RDKit cannot read among the
/// rest, goes through import → fingerprints → Butina → MDS → scatter and a grid of the medoids drawn
/// by RDKit; a similarity search for one of its molecules, given as SMILES, finds that molecule first.
/// </summary>
public sealed class UserCompoundsWorkflowTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task OwnSmilesFile_WithUnreadableMolecules_ClusteredEmbeddedPlottedDrawnAndSearchedBySmiles()
    {
        using var directory = new TemporaryDirectory();
        var shipped = CompoundSet.ReadFile(CompoundSet.FixturePath);
        var lines = Enumerable.Range(100, 150).Select(i => $"{shipped.Smiles[i]} {shipped.Ids[i]}").ToList();
        lines.Insert(20, "C1CC never-closed");
        lines.Insert(90, "c1cccc1 five-aromatic");
        var file = directory.Combine("my compounds.smi");
        await File.WriteAllTextAsync(file, string.Join('\n', lines), Token);
        var query = shipped.Smiles[180];
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: Token);

        var id = await gateway.StartRunAsync(new
        {
            workflow = "chem-compounds",
            parameters = new Dictionary<string, object> { ["import.file"] = file, ["search.querySmiles"] = query, ["medoids.count"] = 12 },
        }, Token);
        var run = await gateway.Runs.WaitAsync(id, Token);
        Assert.True(run.State == Runs.RunState.Succeeded, run.Error);

        // The 150 molecules RDKit reads are in; the two it cannot are counted out.
        var import = run.Steps.Single(s => s.Id == "import").Outputs!;
        Assert.Equal((150, 2), (import["count"]!.GetValue<int>(), import["refused"]!.GetValue<int>()));

        // The search finds the query molecule itself, at similarity 1.
        var hits = run.Steps.Single(s => s.Id == "search").Outputs!["table"]!.AsArray();
        Assert.Equal(shipped.Ids[180], hits[0]!["compound"]!.GetValue<string>());
        Assert.Equal(1.0, hits[0]!["similarity"]!.GetValue<double>());

        // The scatter plot and the medoid grid: twelve RDKit drawings, the largest cluster's medoid first.
        Assert.Equal(["molecules.svg", "scatter.png", "scatter.svg"], run.Artifacts.Select(a => a.Name).Order(StringComparer.Ordinal));
        var medoids = run.Steps.Single(s => s.Id == "butina").Outputs!["medoids"]!.AsArray().Select(m => m!.GetValue<int>()).ToList();
        var grid = XDocument.Parse(Encoding.UTF8.GetString((await gateway.Runs.GetArtifactAsync(id, "molecules.svg", Token)).Data));
        XNamespace svg = "http://www.w3.org/2000/svg";
        var cells = grid.Root!.Elements(svg + "svg").ToList();
        Assert.Equal(12, cells.Count);
        Assert.All(cells, c => Assert.NotEmpty(c.Descendants(svg + "path"))); // RDKit draws bonds as paths
        var captions = grid.Root.Elements(svg + "text").Select(t => t.Value).ToList();
        var kept = lines.Where(l => l.Contains("moses", StringComparison.Ordinal)).Select(l => l.Split(' ')[1]).ToList();
        Assert.Equal(kept[medoids[0]], captions[1]); // after the title
        Assert.StartsWith("cluster 0 · ", captions[2], StringComparison.Ordinal); // numbered as the Butina table numbers them
    }
}
