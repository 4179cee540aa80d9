using System.Net;
using System.Text;
using Salsa.Chem;
using Salsa.DataFiles;
using Salsa.Services.Tests.Support;

namespace Salsa.Services.Tests.Chem;

/// <summary>The chem service with a small budget per molecule (<c>Salsa:Rdkit:MoleculeBudget</c>), as an operator would set it.</summary>
public sealed class ChemBudgetFixture : ServiceFixture<ChemService>
{
    protected override IReadOnlyDictionary<string, string?> Settings => new Dictionary<string, string?> { ["Salsa:Rdkit:MoleculeBudget"] = "00:00:01.500" };
}

/// <summary>
/// What a molecule may cost is its time: an upload's molecule that takes RDKit longer than the
/// service's budget is refused with its line and that reason, and the rest of the file is stored —
/// the same file twice, each time on engines the budget stopped and replaced.
/// </summary>
public sealed class ChemMoleculeBudgetTests(ChemBudgetFixture fixture) : IClassFixture<ChemBudgetFixture>
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Upload_AMoleculeOverItsBudget_RefusedWithItsLineAndWhy_TheRestStored()
    {
        var shipped = CompoundSet.ReadFile(CompoundSet.FixturePath, 30);
        // 39,200 atoms: some six seconds of RDKit's time, four times the budget; an ordinary molecule takes
        // a millisecond, so a loaded machine (a fresh engine after the refusal) stays far inside it.
        var slow = string.Join('.', Enumerable.Repeat("c1ccc2cc3ccccc3cc2c1", 2800));
        var lines = shipped.Smiles.Select((s, i) => $"{s} {shipped.Ids[i]}").ToList();
        lines.Insert(10, $"{slow} anthracenes");

        for (var attempt = 0; attempt < 2; attempt++)
        {
            using var response = await fixture.Service.Rest.PostAsync($"/api/chem/uploads?name=budget-{attempt}&format=smiles", new StringContent(string.Join('\n', lines), Encoding.UTF8, "text/plain"), Token);
            var text = await response.Content.ReadAsStringAsync(Token);
            Assert.True(response.StatusCode == HttpStatusCode.Created, text);
            var upload = System.Text.Json.JsonSerializer.Deserialize<CompoundUploadView>(text, RestCalls.Json)!;

            Assert.Equal(30, upload.Imported);
            var refused = Assert.Single(upload.Refused);
            Assert.Equal((11, "anthracenes"), (refused.Line, refused.Id));
            Assert.Contains("took longer than 1.5 s on it", refused.Reason, StringComparison.Ordinal);
            Assert.Contains("Salsa:Rdkit:MoleculeBudget", refused.Reason, StringComparison.Ordinal);
        }
    }
}
