using System.Text.Json;
using Salsa.DataFiles;
using Salsa.Testing;

namespace Salsa.Chemistry.Tests;

/// <summary>
/// Real molecules accepted, and what one may cost bounded by its time: the shipped hard cases
/// (data/fixtures/hard_molecules.csv — long peptides, macrocycles, organometallics, charged species,
/// stereo, isotopes, aromaticity edge cases, 10,000-atom molecules, a SMILES of 99,999 characters)
/// are read from their file and fingerprinted by the service's default engine, bit for bit as RDKit
/// 2026.09.1 run beside it in Node makes them, whatever RDKit the machine has installed; a molecule
/// over its budget is refused with that reason and leaves the others alone, engine after engine.
/// </summary>
public sealed class HardMoleculesTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static string HardMoleculesPath => DataDirectory.Default.PathOf("fixtures", "hard_molecules.csv");

    [Fact]
    public async Task HardMolecules_FromTheirFile_AcceptedAndBitForBitRdkit202609_AsNodeMakesThem()
    {
        List<CompoundRecord> records;
        await using (var file = File.OpenRead(HardMoleculesPath))
        {
            records = [.. CompoundFile.Read(file, CompoundFileFormat.Auto, "hard_molecules.csv")];
        }

        // The bits are what is checked here, not the budget (Molecules_OverTheirBudget_… below):
        // a budget far above the default, so the largest molecules are read to the end however
        // busy the machine is with the other test projects (one went over 30 s in a CI run).
        using var rdkit = new Rdkit(2, options: new RdkitOptions { MoleculeBudget = TimeSpan.FromMinutes(10) });
        var computed = await rdkit.FingerprintsAsync([.. records.Select(r => r.Smiles)], Rdkit.Types, cancellationToken: Token);
        var reference = await ReferenceAsync(HardMoleculesPath);

        Assert.Equal("2026.09.1", reference.GetProperty("version").GetString());
        Assert.Equal(reference.GetProperty("version").GetString(), computed.RdkitVersion);
        var expected = reference.GetProperty("molecules").EnumerateArray().ToList();
        Assert.Equal(expected.Select(m => m.GetProperty("id").GetString()), records.Select(r => r.Id));
        Assert.True(records.Max(r => r.Smiles.Length) >= 99_999, "the set holds a SMILES of 100,000 characters");
        for (var i = 0; i < records.Count; i++)
        {
            var id = records[i].Id;
            Assert.True(expected[i].GetProperty("ok").GetBoolean() == (computed.Errors[i] is null), $"{id}: RDKit in Node {(expected[i].GetProperty("ok").GetBoolean() ? "reads" : "refuses")} it; the service says {computed.Errors[i] ?? "it reads it"}");
            if (computed.Errors[i] is null)
            {
                Assert.Equal(expected[i].GetProperty("ecfp4").GetString(), CompoundSet.FormatHex(computed.Fingerprint(FingerprintType.Ecfp4, i), FingerprintType.Ecfp4));
                Assert.Equal(expected[i].GetProperty("maccs").GetString(), CompoundSet.FormatHex(computed.Fingerprint(FingerprintType.Maccs, i), FingerprintType.Maccs));
            }
        }

        // Everything but the one molecule no RDKit reads (a five-carbon ring that cannot be aromatic).
        Assert.Equal(["hard_054_five_carbon_aromatic"], records.Where((_, i) => computed.Errors[i] is not null).Select(r => r.Id));
    }

    [Fact]
    public async Task Molecules_OverTheirBudget_RefusedWithTheReason_TheOthersTheShippedBits_RoundAfterRound()
    {
        var shipped = CompoundSet.ReadFile(CompoundSet.FixturePath, 120);
        // 19,600 atoms in fragments: some three seconds of RDKit's time, six times the budget, on a loaded machine too.
        var slow = string.Join('.', Enumerable.Repeat("c1ccc2cc3ccccc3cc2c1", 1400));
        using var rdkit = new Rdkit(2, options: new RdkitOptions { MoleculeBudget = TimeSpan.FromMilliseconds(500) });

        // Each round stops engines mid-molecule and replaces them; the answers stay right.
        for (var round = 0; round < 3; round++)
        {
            var molecules = shipped.Smiles.ToList();
            var at = new[] { 5 + round, 60, 119 + round };
            foreach (var place in at)
            {
                molecules.Insert(place, slow);
            }

            var computed = await rdkit.FingerprintsAsync(molecules, Rdkit.Types, cancellationToken: Token);

            for (var i = 0; i < molecules.Count; i++)
            {
                if (at.Contains(i))
                {
                    Assert.Contains("took longer than 0.5 s on it", computed.Errors[i], StringComparison.Ordinal);
                    continue;
                }

                var compound = i - at.Count(a => a < i);
                Assert.Null(computed.Errors[i]);
                Assert.True(computed.Fingerprint(FingerprintType.Maccs, i).SequenceEqual(shipped.Fingerprint(FingerprintType.Maccs, compound)), $"round {round}, molecule {i}");
                Assert.True(computed.Fingerprint(FingerprintType.Ecfp4, i).SequenceEqual(shipped.Fingerprint(FingerprintType.Ecfp4, compound)), $"round {round}, molecule {i}");
            }
        }

        // One molecule alone over its budget: refused, not an engine lost to the next caller.
        var refused = await Assert.ThrowsAsync<MoleculeException>(() => rdkit.CanonicalAsync(slow, Token));
        Assert.Contains("took longer than 0.5 s", refused.Message, StringComparison.Ordinal);
        Assert.Equal("CCO", await rdkit.CanonicalAsync("OCC", Token));
    }

    [Fact]
    public async Task Calls_OverTheirBudget_AreATimeout_NamingTheSetting()
    {
        var shipped = CompoundSet.ReadFile(CompoundSet.FixturePath);
        using var rdkit = new Rdkit(1, options: new RdkitOptions { CallBudget = TimeSpan.FromSeconds(1) });
        await rdkit.VersionAsync(Token); // the engine's start is not the call's

        var over = await Assert.ThrowsAsync<TimeoutException>(() => rdkit.FingerprintsAsync([.. Enumerable.Repeat(shipped.Smiles, 40).SelectMany(s => s)], Rdkit.Types, cancellationToken: Token));
        Assert.Contains("Salsa:Rdkit:CallBudget", over.Message, StringComparison.Ordinal);
    }

    /// <summary>RDKit MinimalLib in Node on the file: its release and each molecule's fingerprints, or that it refuses it.</summary>
    private static async Task<JsonElement> ReferenceAsync(string file)
    {
        var node = Path.Combine(AppContext.BaseDirectory, "node");
        var (exitCode, output, error) = await ExternalProgram.RunAsync("node", node, ["rdkit-reference.mjs", RdkitDirectory, file], Token);
        Assert.True(exitCode == 0, $"node rdkit-reference.mjs exited with {exitCode}: {error}");
        return JsonDocument.Parse(output).RootElement.Clone();
    }

    /// <summary>RDKit MinimalLib's files beside the test's binaries (the build copies them from the npm package).</summary>
    private static string RdkitDirectory => Path.Combine(AppContext.BaseDirectory, "rdkit");
}
