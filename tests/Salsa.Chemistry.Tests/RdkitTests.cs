using Salsa.DataFiles;

namespace Salsa.Chemistry.Tests;

/// <summary>
/// RDKit in this process: fingerprints computed from SMILES are the shipped ones bit for bit,
/// molecules RDKit cannot read are reported without disturbing the rest, depictions are RDKit's SVG,
/// and the engines hold up under many callers at once.
/// </summary>
public sealed class RdkitTests : IClassFixture<RdkitTests.Engines>
{
    private readonly Rdkit _rdkit;

    public RdkitTests(Engines engines) => _rdkit = engines.Rdkit;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Fingerprints_FromSmiles_AreTheShippedOnes_ForEveryFixtureCompound()
    {
        var shipped = CompoundSet.ReadFile(CompoundSet.FixturePath);

        var computed = await _rdkit.FingerprintsAsync(shipped.Smiles, Rdkit.Types, cancellationToken: Token);

        Assert.Equal(500, computed.Count);
        Assert.All(computed.Errors, Assert.Null);
        foreach (var type in Rdkit.Types)
        {
            for (var compound = 0; compound < shipped.Count; compound++)
            {
                var expected = CompoundSet.FormatHex(shipped.Fingerprint(type, compound), type);
                var actual = CompoundSet.FormatHex(computed.Fingerprint(type, compound), type);
                Assert.True(expected == actual, $"{type.Name} of {shipped.Ids[compound]} ({shipped.Smiles[compound]}): {actual}, shipped {expected}");
            }
        }

        Assert.Equal("2026.09.1", await _rdkit.VersionAsync(Token));
    }

    [Fact]
    public async Task Engines_MadeUsedAndDisposedOverAndOver_WhileTheCollectorRuns_NoFault()
    {
        // Services start and stop their RDKit with them; a V8 object left to a finalizer after its
        // isolate is gone would end the whole process.
        for (var round = 0; round < 6; round++)
        {
            var rdkit = new Rdkit(2);
            await Task.WhenAll(Enumerable.Range(0, 4).Select(i => Task.Run(async () =>
            {
                Assert.StartsWith("<?xml", await rdkit.SvgAsync("c1ccccc1O", cancellationToken: Token), StringComparison.Ordinal);
                Assert.Null((await rdkit.FingerprintsAsync(["CCO", "c1ccccc1"], Rdkit.Types, cancellationToken: Token)).Errors[0]);
            }, Token)));
            rdkit.Dispose();
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
        }
    }

    [Fact]
    public async Task Fingerprints_FromMolblocks_AreTheShippedOnes_AndTheirSmilesRdkitsCanonicalOnes()
    {
        var shipped = CompoundSet.ReadFile(CompoundSet.FixturePath);
        var sample = Enumerable.Range(0, 60).Select(i => i * 8).ToList();
        var blocks = new List<string>();
        foreach (var i in sample)
        {
            blocks.Add(await _rdkit.MolBlockAsync(shipped.Smiles[i], Token));
        }

        blocks.Insert(7, "broken\n  RDKit\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n");
        var computed = await _rdkit.FingerprintsAsync(blocks, Rdkit.Types, cancellationToken: Token);
        var (smiles, errors) = await _rdkit.SmilesAsync(blocks, cancellationToken: Token);

        Assert.NotNull(computed.Errors[7]);
        Assert.NotNull(errors[7]);
        blocks.RemoveAt(7);
        var kept = Enumerable.Range(0, blocks.Count + 1).Where(k => k != 7).ToList();
        for (var j = 0; j < sample.Count; j++)
        {
            Assert.Null(computed.Errors[kept[j]]);
            Assert.Equal(await _rdkit.CanonicalAsync(shipped.Smiles[sample[j]], Token), smiles[kept[j]]);
            foreach (var type in Rdkit.Types)
            {
                Assert.Equal(CompoundSet.FormatHex(shipped.Fingerprint(type, sample[j]), type), CompoundSet.FormatHex(computed.Fingerprint(type, kept[j]), type));
            }
        }
    }

    [Fact]
    public async Task Fingerprints_UnreadableMolecules_ReportedWithRdkitsReason_TheOthersUnaffected()
    {
        string[] smiles = ["c1ccccc1", "C1CC", "not a molecule", "CCO", "c1cccc1", "", "C(C)(C)(C)(C)C", "CC(=O)O"];

        var computed = await _rdkit.FingerprintsAsync(smiles, [FingerprintType.Ecfp4], cancellationToken: Token);

        Assert.Null(computed.Errors[0]);
        Assert.Contains("unclosed ring", computed.Errors[1], StringComparison.OrdinalIgnoreCase);
        Assert.NotNull(computed.Errors[2]);
        Assert.Null(computed.Errors[3]);
        Assert.Contains("kekulize", computed.Errors[4], StringComparison.OrdinalIgnoreCase);
        Assert.Contains("valence", computed.Errors[6], StringComparison.OrdinalIgnoreCase);
        Assert.Equal("empty SMILES", computed.Errors[5]);
        Assert.Null(computed.Errors[7]);
        // Benzene's ECFP4 bits are {64, 389, 849} (data/README.md); a failure leaves its own slot empty.
        var benzene = computed.Fingerprint(FingerprintType.Ecfp4, 0).ToArray();
        Assert.Equal([64, 389, 849], Enumerable.Range(0, 1024).Where(b => (benzene[b / 64] >> (b % 64) & 1) != 0));
        Assert.All(computed.Fingerprint(FingerprintType.Ecfp4, 1).ToArray(), w => Assert.Equal(0UL, w));
        Assert.Contains(computed.Fingerprint(FingerprintType.Ecfp4, 3).ToArray(), w => w != 0);
    }

    [Fact]
    public async Task Svg_IsRdkitsDepiction_AndAnUnreadableMoleculeIsRefusedWithTheReason()
    {
        var svg = await _rdkit.SvgAsync("CC(=O)Oc1ccccc1C(=O)O", 300, 200, Token);

        Assert.StartsWith("<?xml", svg, StringComparison.Ordinal);
        Assert.Contains("<svg", svg, StringComparison.Ordinal);
        Assert.Contains("width='300px'", svg, StringComparison.Ordinal);
        var refusal = await Assert.ThrowsAsync<MoleculeException>(() => _rdkit.SvgAsync("C1CC", cancellationToken: Token));
        Assert.Contains("C1CC", refusal.Message, StringComparison.Ordinal);
        Assert.Equal("CCO", await _rdkit.CanonicalAsync("OCC", Token));
    }

    [Fact]
    public async Task ManyCallersAtOnce_OnFewerEngines_EachGetsItsOwnAnswers()
    {
        var shipped = CompoundSet.ReadFile(CompoundSet.FixturePath);
        var reference = await _rdkit.FingerprintsAsync(shipped.Smiles, Rdkit.Types, cancellationToken: Token);

        // 32 callers on 2 engines, each with its own slice (offsets differ, so a mixed-up answer shows),
        // some with bad molecules spliced in, every one asking fingerprints and depictions at once.
        var callers = Enumerable.Range(0, 32).Select(caller => Task.Run(async () =>
        {
            var start = caller * 13 % 400;
            var slice = shipped.Smiles.Skip(start).Take(100).ToList();
            slice.Insert(caller % 100, "C1CC");
            var computed = await _rdkit.FingerprintsAsync(slice, Rdkit.Types, cancellationToken: Token);
            await _rdkit.SvgAsync(slice[0] == "C1CC" ? slice[1] : slice[0], cancellationToken: Token);
            for (var i = 0; i < slice.Count; i++)
            {
                var compound = i < caller % 100 ? start + i : start + i - 1;
                if (i == caller % 100)
                {
                    Assert.NotNull(computed.Errors[i]);
                    continue;
                }

                foreach (var type in Rdkit.Types)
                {
                    Assert.True(computed.Fingerprint(type, i).SequenceEqual(reference.Fingerprint(type, compound)), $"caller {caller}, molecule {i}, {type.Name}");
                }
            }
        }, Token));

        await Task.WhenAll(callers);
    }

    /// <summary>Two engines for the whole class (fewer than the callers the contention test brings).</summary>
    public sealed class Engines : IDisposable
    {
        public Rdkit Rdkit { get; } = new(engines: 2);

        public void Dispose() => Rdkit.Dispose();
    }
}
